package overload

import "fmt"

// pressure holds the 10-second averages of one /proc/pressure file, in
// percent of time stalled. The cpu file has a "full" line only since Linux
// 5.13 (always zero at system level), so only "some" is used for CPU.
type pressure struct{ some, full float64 }

// readPressure reads /proc/pressure/<resource> (procfs's
// FS.PSIStatsForResource); the "some" line is required.
func readPressure(src *procSource, resource string) (pressure, error) {
	fs, err := src.fsys()
	if err != nil {
		return pressure{}, err
	}
	st, err := fs.PSIStatsForResource(resource)
	if err != nil {
		return pressure{}, err
	}
	if st.Some == nil {
		return pressure{}, fmt.Errorf("parse %s/pressure/%s: no some line", src.root, resource)
	}
	p := pressure{some: st.Some.Avg10}
	if st.Full != nil {
		p.full = st.Full.Avg10
	}
	return p, nil
}
