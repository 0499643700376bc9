package overload

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// maxProcFileSize bounds the buffer of one kernel file; memory.stat, the
// largest file read here, is a few kilobytes.
const maxProcFileSize = 1 << 20

// procFile is a kernel file kept open and re-read with pread at offset 0.
// The kernel regenerates a /proc or cgroup file on every read from offset 0,
// so keeping it open saves an open and a close per sample, and reusing the
// buffer saves an allocation.
type procFile struct {
	path string
	fd   int
	buf  []byte
}

func newProcFile(path string, size int) *procFile {
	return &procFile{path: path, fd: -1, buf: make([]byte, size)}
}

// read returns the whole current content. The slice is valid until the next
// read. After a failed read the file is closed, so the next read reopens it
// (a source that comes back is picked up again).
func (f *procFile) read() ([]byte, error) {
	if f.fd < 0 {
		fd, err := syscall.Open(f.path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: f.path, Err: err}
		}
		f.fd = fd
	}
	for {
		n, err := syscall.Pread(f.fd, f.buf, 0)
		if err != nil {
			f.close()
			return nil, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		if n < len(f.buf) {
			return f.buf[:n], nil
		}
		if len(f.buf) >= maxProcFileSize {
			f.close()
			return nil, fmt.Errorf("read %s: larger than %d bytes", f.path, maxProcFileSize)
		}
		f.buf = make([]byte, 2*len(f.buf))
	}
}

func (f *procFile) close() {
	if f.fd >= 0 {
		syscall.Close(f.fd)
		f.fd = -1
	}
}

// isNotExist reports whether err says that a file is absent, which for a
// thread's file means the thread has exited.
func isNotExist(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH)
}
