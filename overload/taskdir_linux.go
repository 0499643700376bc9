package overload

import (
	"fmt"
	"os"
	"syscall"
)

// maxDirentReads bounds one directory listing (each getdents call returns
// many entries; a process with this many calls' worth of threads is broken).
const maxDirentReads = 1 << 16

// taskDir lists the thread ids under /proc/self/task. It keeps the directory
// open and lists it with getdents into a reused buffer, so a scan allocates
// nothing (os.ReadDir allocates one entry per thread).
type taskDir struct {
	path string
	fd   int
	buf  []byte
}

func newTaskDir(path string) *taskDir {
	return &taskDir{path: path, fd: -1, buf: make([]byte, 8192)}
}

func (d *taskDir) open() error {
	if d.fd >= 0 {
		return nil
	}
	fd, err := syscall.Open(d.path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: d.path, Err: err}
	}
	d.fd = fd
	return nil
}

// links returns the directory's link count. For /proc/self/task it is 2
// plus the number of threads, computed at every stat: one cheap fstat tells
// whether threads were created or ended since the last listing.
func (d *taskDir) links() (uint64, error) {
	if err := d.open(); err != nil {
		return 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(d.fd, &st); err != nil {
		d.close()
		return 0, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	return uint64(st.Nlink), nil
}

// list appends the numeric entries of the directory to tids[:0].
func (d *taskDir) list(tids []int) ([]int, error) {
	tids = tids[:0]
	if err := d.open(); err != nil {
		return tids, err
	}
	if _, err := syscall.Seek(d.fd, 0, 0); err != nil {
		d.close()
		return tids, &os.PathError{Op: "seek", Path: d.path, Err: err}
	}
	for range maxDirentReads {
		n, err := syscall.Getdents(d.fd, d.buf)
		if err != nil {
			d.close()
			return tids, &os.PathError{Op: "getdents", Path: d.path, Err: err}
		}
		if n <= 0 {
			return tids, nil
		}
		tids = appendDirentTids(tids, d.buf[:n])
	}
	return tids, fmt.Errorf("list %s: more than %d directory reads", d.path, maxDirentReads)
}

// appendDirentTids parses linux_dirent64 records: ino (8), off (8),
// reclen (2), type (1), then the NUL-terminated name.
func appendDirentTids(tids []int, b []byte) []int {
	const nameOffset = 19
	for range len(b) {
		if len(b) < nameOffset {
			return tids
		}
		reclen := int(b[16]) | int(b[17])<<8
		if reclen < nameOffset || reclen > len(b) {
			return tids
		}
		if tid, ok := direntTid(b[nameOffset:reclen]); ok {
			tids = append(tids, tid)
		}
		b = b[reclen:]
	}
	return tids
}

// direntTid parses a NUL-terminated decimal name; "." and ".." are not ids.
func direntTid(name []byte) (int, bool) {
	tid := 0
	for i, c := range name {
		if c == 0 {
			return tid, i > 0
		}
		if c < '0' || c > '9' || i >= 10 {
			return 0, false
		}
		tid = tid*10 + int(c-'0')
	}
	return tid, len(name) > 0
}

func (d *taskDir) close() {
	if d.fd >= 0 {
		syscall.Close(d.fd)
		d.fd = -1
	}
}
