package overload

import (
	"fmt"
	"os"
)

// memInfo holds the host memory figures of /proc/meminfo, in bytes.
type memInfo struct{ total, available uint64 }

// memInfoReader reads /proc/meminfo.
type memInfoReader struct{ file *procFile }

func newMemInfoReader(procRoot string) *memInfoReader {
	return &memInfoReader{file: newProcFile(procRoot+"/meminfo", 4096)}
}

func (r *memInfoReader) read() (memInfo, error) {
	content, err := r.file.read()
	if err != nil {
		return memInfo{}, err
	}
	total, err := uintKey(content, "MemTotal:", r.file.path)
	if err != nil {
		return memInfo{}, err
	}
	available, err := uintKey(content, "MemAvailable:", r.file.path)
	if err != nil {
		return memInfo{}, err
	}
	return memInfo{total: total * 1024, available: available * 1024}, nil
}

// rssReader reads the resident set size of the own process from
// /proc/self/statm (second field, in pages): cheaper than /proc/self/status.
type rssReader struct {
	file     *procFile
	pageSize uint64
}

func newRSSReader(procRoot string) *rssReader {
	return &rssReader{file: newProcFile(procRoot+"/self/statm", 128), pageSize: uint64(os.Getpagesize())}
}

func (r *rssReader) read() (uint64, error) {
	content, err := r.file.read()
	if err != nil {
		return 0, err
	}
	_, rest := nextField(content)
	f, _ := nextField(rest)
	pages, err := parseUint(f)
	if err != nil {
		return 0, fmt.Errorf("parse %s: resident pages: %w", r.file.path, err)
	}
	return pages * r.pageSize, nil
}
