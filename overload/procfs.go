package overload

import (
	"fmt"
	"strconv"

	"github.com/prometheus/procfs"
)

// procSource is the proc filesystem at an injectable root, read through
// procfs. It is opened on first use and, until that succeeds, again at every
// use, so a root that is missing at start (a fixture, a container that mounts
// /proc late) is picked up when it appears.
type procSource struct {
	root   string
	fs     procfs.FS
	fsOK   bool
	self   procfs.Proc
	selfOK bool
}

func newProcSource(root string) *procSource { return &procSource{root: root} }

// fsys returns the filesystem.
func (p *procSource) fsys() (procfs.FS, error) {
	if !p.fsOK {
		fs, err := procfs.NewFS(p.root)
		if err != nil {
			return procfs.FS{}, err
		}
		p.fs, p.fsOK = fs, true
	}
	return p.fs, nil
}

// proc returns the own process, as root/self names it.
func (p *procSource) proc() (procfs.Proc, error) {
	if !p.selfOK {
		fs, err := p.fsys()
		if err != nil {
			return procfs.Proc{}, err
		}
		self, err := fs.Self()
		if err != nil {
			return procfs.Proc{}, fmt.Errorf("find the own process under %s: %w", p.root, err)
		}
		p.self, p.selfOK = self, true
	}
	return p.self, nil
}

// taskPath is the directory of the own process's threads.
func (p *procSource) taskPath() string {
	return p.root + "/" + strconv.Itoa(p.self.PID) + "/task"
}
