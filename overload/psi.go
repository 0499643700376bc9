package overload

import "fmt"

// pressure holds the 10-second averages of one /proc/pressure file, in
// percent of time stalled. The cpu file has a "full" line only since Linux
// 5.13 (always zero at system level), so only "some" is used for CPU.
type pressure struct{ some, full float64 }

// psiReader reads one /proc/pressure/<resource> file.
type psiReader struct{ file *procFile }

func newPSIReader(procRoot, resource string) *psiReader {
	return &psiReader{file: newProcFile(procRoot+"/pressure/"+resource, 256)}
}

func (r *psiReader) read() (pressure, error) {
	content, err := r.file.read()
	if err != nil {
		return pressure{}, err
	}
	p, err := parsePSI(content)
	if err != nil {
		return pressure{}, fmt.Errorf("parse %s: %w", r.file.path, err)
	}
	return p, nil
}

// parsePSI parses lines "some avg10=0.12 avg60=... avg300=... total=...".
func parsePSI(content []byte) (pressure, error) {
	var p pressure
	some := false
	for range len(content) + 1 {
		if len(content) == 0 {
			break
		}
		var line []byte
		line, content = nextLine(content)
		kind, rest := nextField(line)
		avg, _ := nextField(rest)
		if len(kind) == 0 {
			continue
		}
		if !hasPrefix(avg, "avg10=") {
			return pressure{}, fmt.Errorf("%q has no avg10", line)
		}
		v, err := parseFloat(avg[len("avg10="):])
		if err != nil {
			return pressure{}, fmt.Errorf("avg10: %w", err)
		}
		switch string(kind) {
		case "some":
			p.some, some = v, true
		case "full":
			p.full = v
		}
	}
	if !some {
		return pressure{}, fmt.Errorf("no some line")
	}
	return p, nil
}
