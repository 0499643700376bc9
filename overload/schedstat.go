package overload

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// rescanEvery is how many samples may pass without listing the task
// directory even though its link count did not change: a safety net for
// filesystems whose directory link counts mean nothing.
const rescanEvery = 10

// threadTimes are a thread's cumulative nanoseconds from
// /proc/<pid>/task/<tid>/schedstat: on a CPU (busy) and runnable but waiting
// in the kernel's run queue (wait).
type threadTimes struct{ busy, wait uint64 }

// thread is one tracked thread of the server process.
type thread struct {
	file *procFile
	last threadTimes
	seen uint64 // the listing that last showed it
}

// threadReader sums schedstat over the threads of the own process.
// /proc/self/schedstat covers the main thread only, so every thread is read.
//
// Accounting is per thread id and keeps the totals monotonic: a thread
// contributes its full counters from its first reading (all of them
// accumulated while it ran), and a thread that exits keeps its last reading
// in the total (moved to retired). A reading that goes backwards means the id
// was reused by a new thread: the old thread's values are retired and the new
// thread contributes from its own start.
//
// The threads are listed with procfs's FS.AllThreads, again only when the
// task directory's link count (2 + threads) changed, when a thread ended (its
// id may have been reused), or every rescanEvery samples. Each thread's
// schedstat is not read through procfs's Proc.Schedstat, which opens, reads
// and closes the file at every call: it is the one file read once per thread
// at every sample, so it stays open and is re-read with pread (procFile). A
// thread that ends shows as ESRCH on its open file.
type threadReader struct {
	src      *procSource
	threads  map[int]*thread
	retired  threadTimes
	listing  uint64 // number of listings so far
	links    uint64 // link count at the last listing
	unlisted int    // samples since the last listing
	// interval holds each thread's busy and wait since the previous read (a new thread: since
	// its start), for kernelWait; reused from read to read.
	interval []threadTimes
}

func newThreadReader(src *procSource) *threadReader {
	return &threadReader{src: src, threads: make(map[int]*thread)}
}

// read returns the cumulative busy and kernel wait of the process. An error
// other than a thread's exit makes the whole reading unusable, but the
// per-thread state survives it, so the totals stay monotonic afterwards.
func (r *threadReader) read() (threadTimes, error) {
	if _, err := r.src.proc(); err != nil {
		return threadTimes{}, err
	}
	links, err := taskLinks(r.src.taskPath())
	if err != nil {
		return threadTimes{}, err
	}
	r.unlisted++
	r.interval = r.interval[:0]
	if links == 0 || links != r.links || r.unlisted >= rescanEvery || r.listing == 0 {
		if err := r.list(links); err != nil {
			return threadTimes{}, err
		}
	}
	exited, err := r.readThreads()
	if exited && err == nil {
		if err := r.list(links); err != nil {
			return threadTimes{}, err
		}
		_, err = r.readThreads()
	}
	if err != nil {
		return threadTimes{}, err
	}
	total := r.retired
	for _, t := range r.threads {
		total.add(t.last)
	}
	return total, nil
}

// taskLinks returns the link count of the task directory: 2 plus the number
// of threads, computed at every stat, so one stat tells whether threads were
// created or ended since the last listing.
func taskLinks(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return uint64(st.Nlink), nil
}

// list reconciles the tracked threads with the directory: new ids are
// added, ids no longer listed are retired.
func (r *threadReader) list(links uint64) error {
	fs, err := r.src.fsys()
	if err != nil {
		return err
	}
	tasks, err := fs.AllThreads(r.src.self.PID)
	if err != nil {
		return err
	}
	r.listing++
	r.links, r.unlisted = links, 0
	for _, task := range tasks {
		if t, ok := r.threads[task.PID]; ok {
			t.seen = r.listing
			continue
		}
		path := r.src.taskPath() + "/" + strconv.Itoa(task.PID) + "/schedstat"
		r.threads[task.PID] = &thread{file: newProcFile(path, 64), seen: r.listing}
	}
	for tid, t := range r.threads {
		if t.seen != r.listing {
			r.retire(tid, t)
		}
	}
	return nil
}

// readThreads re-reads every tracked thread and reports whether one ended.
func (r *threadReader) readThreads() (exited bool, err error) {
	for tid, t := range r.threads {
		content, readErr := t.file.read()
		if isNotExist(readErr) {
			r.retire(tid, t)
			exited = true
			continue
		}
		var now threadTimes
		if readErr == nil {
			if now, readErr = parseSchedstat(content); readErr != nil {
				readErr = fmt.Errorf("parse %s: %w", t.file.path, readErr)
			}
		}
		if readErr != nil {
			if err == nil {
				err = readErr
			}
			continue
		}
		delta := now
		if now.busy < t.last.busy || now.wait < t.last.wait {
			r.retired.add(t.last)
		} else {
			delta = threadTimes{busy: now.busy - t.last.busy, wait: now.wait - t.last.wait}
		}
		if delta != (threadTimes{}) {
			r.interval = append(r.interval, delta)
		}
		t.last = now
	}
	return exited, err
}

func (r *threadReader) retire(tid int, t *thread) {
	r.retired.add(t.last)
	t.file.close()
	delete(r.threads, tid)
}

// close closes the files but keeps the accounting, so a later read reopens
// them and the totals stay monotonic.
func (r *threadReader) close() {
	for _, t := range r.threads {
		t.file.close()
	}
}

func (a *threadTimes) add(b threadTimes) {
	a.busy += b.busy
	a.wait += b.wait
}

// parseSchedstat parses "busy_ns wait_ns timeslices".
func parseSchedstat(b []byte) (threadTimes, error) {
	f1, rest := nextField(b)
	f2, _ := nextField(rest)
	busy, err := parseUint(f1)
	if err != nil {
		return threadTimes{}, err
	}
	wait, err := parseUint(f2)
	if err != nil {
		return threadTimes{}, err
	}
	return threadTimes{busy: busy, wait: wait}, nil
}
