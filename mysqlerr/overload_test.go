package mysqlerr

import (
	"strings"
	"testing"
)

func TestOverloadMessages(t *testing.T) {
	got := OverloadedMessage(4, 2, 6, 0.5)
	want := "CPU is overloaded, CPU is waiting for execution way more than executing, ratio of wait time (OSCPUWaitMicroseconds metric) to busy time (OSCPUVirtualTimeMicroseconds metric) is 4. Min ratio for error (min_os_cpu_wait_time_ratio_to_throw setting) 2, max ratio for error (max_os_cpu_wait_time_ratio_to_throw setting) 6, probability used to decide whether to discard the query 0.5. Consider reducing the number of queries or increase backoff between retries. (SERVER_OVERLOADED)"
	if got != want {
		t.Errorf("OverloadedMessage:\n got %s\nwant %s", got, want)
	}
	if got := OverloadedMessage(9, 1, 1.5, 1); !strings.Contains(got, "is 1.5. ") {
		t.Errorf("the ratio printed is not the clamped one: %s", got)
	}
	if got := DroppedMessage(2.7679569453035255, 1, 3, 0.8839784726517628); got != "Too many connections: CPU is overloaded, CPU is waiting for execution way more than executing, ratio of wait time (OSCPUWaitMicroseconds metric) to busy time (OSCPUVirtualTimeMicroseconds metric) is 2.7679569453035255. Min ratio for error 1, max ratio for error 3, probability used to decide whether to drop the connection 0.8839784726517628." {
		t.Errorf("DroppedMessage: %s", got)
	}
}
