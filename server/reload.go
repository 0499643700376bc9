package server

import (
	"fmt"
	"strings"
	"time"

	"overloadsql/server/config"
	"overloadsql/warnings"
)

// Reload reads the config file again and applies it as a whole, or not at all: a file that does
// not load or validate leaves the running settings as they are, logs why and shows a warning in
// system.warnings until a reload succeeds. Settings that need a restart are reported, not applied.
func (s *Server) Reload(reason string) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.cfg.Load()
	if old.Path == "" {
		return fmt.Errorf("reload: the server runs on built-in defaults (no config file)")
	}
	err := s.reload(old)
	if err != nil {
		s.logger.Error("config reload failed; the running settings stay", "reason", reason, "err", err)
		w := warnings.Warning{
			Key:           "reload",
			Resource:      "config",
			Message:       "Config reload failed, the previous settings stay in force: " + err.Error(),
			MessageFormat: "Config reload failed, the previous settings stay in force: {}",
			Value:         1,
		}
		s.reloadFailure.Store(&w)
		s.registry.Raise(time.Now(), w)
		return err
	}
	s.reloadFailure.Store(nil)
	s.registry.Clear("reload")
	return nil
}

func (s *Server) reload(old *config.Config) error {
	loaded, err := config.Load(old.Path)
	if err != nil {
		return err
	}
	fromFile, err := s.persist.apply(loaded)
	if err != nil {
		return err
	}
	next := s.keepRuntimeChanges(old, fromFile)
	if restart := config.RestartRequired(old, next); len(restart) > 0 {
		s.logger.Warn("config changes that need a restart are not applied until then", "settings", strings.Join(restart, ", "))
		keepRestartOnly(next, old)
	}
	if err := s.apply(next); err != nil {
		return err
	}
	s.variables.applyDefaults(s.fromFile, next)
	s.fromFile = fromFile
	s.logger.Info("config reloaded", "path", old.Path)
	return nil
}

// keepRuntimeChanges returns the configuration a reload moves to: the file's (with the persisted
// values), except that a server setting changed at run time (SET GLOBAL) keeps its running value
// when the file did not change it. A reload changes what the file changed, nothing else. If the
// kept values do not fit with the file's, the file wins.
func (s *Server) keepRuntimeChanges(running, fromFile *config.Config) *config.Config {
	kept := map[string]string{}
	for _, st := range config.ServerSettings() {
		before, _ := s.fromFile.ServerSettingValue(st.Name)
		after, _ := fromFile.ServerSettingValue(st.Name)
		now, _ := running.ServerSettingValue(st.Name)
		if before == after && now != after {
			kept[st.Name] = now
		}
	}
	if len(kept) == 0 {
		return fromFile
	}
	next := fromFile.Clone()
	if err := next.ApplyPersisted(kept); err != nil {
		s.logger.Warn("settings changed with SET GLOBAL do not fit the reloaded file; the file's values apply", "err", err)
		return fromFile
	}
	return next
}

// keepRestartOnly keeps in next the running values of the settings that need a restart, so
// system.server_settings goes on showing what is really in force.
func keepRestartOnly(next, running *config.Config) {
	next.Listen = running.Listen
	next.AdminListen = running.AdminListen
	next.Users = running.Users
}
