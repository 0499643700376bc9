package server

import (
	"regexp"
	"time"

	"overloadsql/overload"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/data"
	"overloadsql/server/wire"
	"overloadsql/tables"
	"overloadsql/warnings"
)

// onSample runs after every published sample: the warning trackers see the current values.
func (s *Server) onSample(snap *overload.Snapshot) {
	s.monitor.Observe(snap.Time, warnings.Observation{
		CPUBusy:     snap.CPUBusy,
		CPUKnown:    snap.CPUBusyKnown,
		Memory:      snap.Memory,
		MemoryUsed:  snap.MemoryUsed,
		MemoryLimit: snap.MemoryLimit,
		MemoryKnown: snap.MemoryKnown,
	})
	s.noteUnavailable(snap)
	s.noteSimulation(snap)
	// Like the others, a failed reload stays shown (also after TRUNCATE) until it is mended.
	if w := s.reloadFailure.Load(); w != nil {
		s.registry.Raise(snap.Time, *w)
	}
	s.recordHistory(snap)
}

// noteUnavailable keeps one warning per blind measurement source, for as long as it stays blind.
func (s *Server) noteUnavailable(snap *overload.Snapshot) {
	if len(snap.Unavailable) == 0 && len(s.blind) == 0 {
		return
	}
	blind := make(map[string]bool, len(snap.Unavailable))
	for _, u := range snap.Unavailable {
		key := "unavailable:" + u.Source
		blind[key] = true
		s.registry.Raise(snap.Time, warnings.Warning{
			Key:           key,
			Resource:      "overload",
			Message:       u.Source + " is unavailable: " + u.Reason,
			MessageFormat: "{} is unavailable: {}",
			Value:         1,
		})
	}
	for key := range s.blind {
		if !blind[key] {
			s.registry.Clear(key)
		}
	}
	s.blind = blind
}

func (s *Server) noteSimulation(snap *overload.Snapshot) {
	sim := snap.Simulation
	if !sim.Active() {
		s.registry.Clear("simulation")
		return
	}
	msg := "Overload simulation is active:"
	for _, v := range []struct {
		name  string
		value float64
	}{
		{simOverload, sim.Overload},
		{simCPUBusy, sim.CPUBusy},
		{simMemory, sim.Memory},
	} {
		if v.value >= 0 {
			msg += " " + v.name + " = " + number(v.value)
		}
	}
	s.registry.Raise(snap.Time, warnings.Warning{
		Key:           "simulation",
		Resource:      "simulation",
		Message:       msg + ". Measured values are replaced; SET GLOBAL them to -1 to turn the simulation off.",
		MessageFormat: "Overload simulation is active: {}. Measured values are replaced; SET GLOBAL them to -1 to turn the simulation off.",
		Value:         1,
	})
}

// asynchronousMetrics are the sample's rows plus what the server computes itself.
func (s *Server) asynchronousMetrics() []overload.Metric {
	snap := s.sampler.Snapshot()
	d := s.dropSettings()
	rows := make([]overload.Metric, 0, len(snap.Metrics)+2)
	rows = append(rows, snap.Metrics...)
	rows = append(rows,
		overload.Metric{Name: "ConnectionDropProbability", Value: overload.Probability(snap.Overload, d.Min, d.Max),
			Description: "Probability that a new connection to the main listener is dropped now, from OSCPUOverload and the *_os_cpu_wait_time_ratio_to_drop_connection server settings."},
		overload.Metric{Name: "Uptime", Value: time.Since(s.started).Seconds(),
			Description: "Seconds since the server started."},
	)
	if s.store != nil {
		rows = append(rows, data.Gauges(s.store.Observe())...)
	}
	return rows
}

func (s *Server) events() []overload.Event {
	rows := append(append(s.sampler.Snapshot().Counters.Events(), s.counters.events()...), s.sessionAccounts.Events()...)
	rows = append(rows, s.writes.Events()...)
	rows = append(rows, s.pointPlanEvents()...)
	if s.store != nil {
		rows = append(rows, data.Events(s.store.Observe())...)
	}
	return rows
}

func (s *Server) serverSettings() []tables.ServerSetting {
	cfg := s.cfg.Load()
	all := config.ServerSettings()
	rows := make([]tables.ServerSetting, 0, len(all))
	for _, st := range all {
		v, _ := cfg.ServerSettingValue(st.Name)
		rows = append(rows, tables.ServerSetting{
			Name: st.Name, Value: v, Default: st.Default, Changed: v != st.Default,
			Description: st.Description, Type: st.Type, Reloadable: st.Reloadable,
		})
	}
	return rows
}

func (s *Server) dropSettings() wire.DropSettings {
	cfg := s.cfg.Load()
	return wire.DropSettings{
		Min:            cfg.MinDropRatio,
		Max:            cfg.MaxDropRatio,
		MaxConnections: int64(cfg.MaxConnections),
		DryRun:         cfg.OverloadEnforcement == config.EnforcementDryRun,
	}
}

func (s *Server) loginDelaySettings() access.LoginDelaySettings {
	cfg := s.cfg.Load()
	return access.LoginDelaySettings{
		Threshold: cfg.FailedLoginThreshold,
		Min:       cfg.FailedLoginMinDelay,
		Max:       cfg.FailedLoginMaxDelay,
	}
}

func samplerSettings(cfg *config.Config) overload.Settings {
	return overload.Settings{
		Interval:        cfg.OverloadSampleInterval,
		Window:          cfg.AsynchronousMetricsUpdatePeriod,
		BusyThreshold:   time.Duration(cfg.OSCPUBusyTimeThreshold) * time.Microsecond,
		MaxServerMemory: cfg.MaxServerMemoryUsage,
	}
}

func warningsConfig(cfg *config.Config) warnings.Config {
	w := cfg.Warnings
	return warnings.Config{
		CPU:    warnings.Thresholds{Warn: w.CPUWarnRatio, Clear: w.CPUClearRatio, Duration: w.CPUDuration},
		Memory: warnings.Thresholds{Warn: w.MemoryWarnRatio, Clear: w.MemoryClearRatio, Duration: w.MemoryDuration},
	}
}

func (s *Server) applySuppress(cfg *config.Config) error {
	var re *regexp.Regexp
	if cfg.WarningSuppressRegexp != "" {
		var err error
		if re, err = regexp.Compile(cfg.WarningSuppressRegexp); err != nil {
			return err
		}
	}
	s.registry.SetSuppress(re)
	return nil
}

// apply makes cfg the running configuration: every reloadable part takes effect now. The caller
// holds the settings lock. readCertificates reads the TLS certificate and key files again: on a
// reload, so that a renewed certificate under the same name is picked up, and when SET GLOBAL
// names other files; not on every SET GLOBAL, which would read files under the lock.
func (s *Server) apply(cfg *config.Config, readCertificates bool) error {
	if err := s.applySuppress(cfg); err != nil {
		return err
	}
	if readCertificates && (cfg.Path != "" || cfg.TLSCertFile != "") {
		if err := s.certs.Load(cfg); err != nil {
			return err
		}
	}
	s.cfg.Store(cfg)
	s.sampler.Reconfigure(samplerSettings(cfg))
	s.admission.SetLimits(admissionLimits(cfg))
	s.sessionAccounts.ConfigureWorkloads(cfg)
	s.monitor.SetConfig(warningsConfig(cfg))
	return nil
}
