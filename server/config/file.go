package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxFileSize bounds the config file and the persisted-settings file: a larger file is refused.
const MaxFileSize = 1 << 20

// ErrNotRegular is returned for a config path that is not a regular file (a FIFO, a device, a
// directory): reading one could block forever, so it is refused.
var ErrNotRegular = errors.New("not a regular file")

// readRegularFile reads a whole regular file of at most MaxFileSize bytes. It opens the file
// with O_NONBLOCK, so opening a FIFO does not wait for a writer, and refuses anything that is not
// a regular file before reading a byte: the read cannot block.
func readRegularFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
	}
	if info.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d", path, info.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: more than the limit of %d bytes", path, MaxFileSize)
	}
	return data, nil
}
