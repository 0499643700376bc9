package warnings

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestThresholdsValidate(t *testing.T) {
	tests := []struct {
		name    string
		th      Thresholds
		wantErr string // substring; empty means valid
	}{
		{"defaults", Thresholds{Warn: 0.9, Clear: 0.8, Duration: 600 * time.Second}, ""},
		{"clear equal to warn", Thresholds{Warn: 0.9, Clear: 0.9}, ""},
		{"all zero", Thresholds{}, ""},
		{"warn above one", Thresholds{Warn: 1.5, Clear: 1.2, Duration: time.Second}, ""},
		{"clear above warn", Thresholds{Warn: 0.8, Clear: 0.9}, "clear ratio 0.9 is above warn ratio 0.8"},
		{"negative clear", Thresholds{Warn: 0.8, Clear: -0.1}, "clear ratio -0.1 is negative"},
		{"negative warn", Thresholds{Warn: -0.5, Clear: 0}, "clear ratio 0 is above warn ratio -0.5"},
		{"negative duration", Thresholds{Warn: 0.9, Clear: 0.8, Duration: -time.Second}, "duration -1s is negative"},
		{"NaN warn", Thresholds{Warn: math.NaN(), Clear: 0.8}, "warn ratio NaN is not a finite number"},
		{"infinite clear", Thresholds{Warn: 0.9, Clear: math.Inf(1)}, "clear ratio +Inf is not a finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.th.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDefaultConfig(t *testing.T) {
	want := Thresholds{Warn: 0.9, Clear: 0.8, Duration: 600 * time.Second}
	cfg := DefaultConfig()
	if cfg.CPU != want || cfg.Memory != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v for both resources", cfg, want)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
}

func TestConfigValidateNamesTheResource(t *testing.T) {
	bad := Thresholds{Warn: 0.5, Clear: 0.6}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"cpu", Config{CPU: bad, Memory: DefaultConfig().Memory}, []string{"cpu overload warning: clear ratio 0.6"}},
		{"memory", Config{CPU: DefaultConfig().CPU, Memory: bad}, []string{"memory overload warning: clear ratio 0.6"}},
		{"both", Config{CPU: bad, Memory: bad}, []string{"cpu overload warning", "memory overload warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}
