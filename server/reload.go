package server

import (
	"fmt"
	"strings"
	"time"

	"overloadsql/server/config"
	"overloadsql/warnings"
)

// Reload reads the config file again and applies it as a whole, or not at all: a file that does
// not load or validate (an empty file included) leaves the running settings as they are, logs
// why and shows a warning in system.warnings until a reload succeeds. Settings that need a
// restart are reported, not applied. The file is read before the settings lock is taken (see
// the lock order in the package comment).
func (s *Server) Reload(reason string) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	path := s.cfg.Load().Path
	if path == "" {
		err := fmt.Errorf("reload: the server runs on built-in defaults (no config file)")
		s.logger.Warn("config reload refused", "reason", reason, "err", err)
		return err
	}
	err := s.reload(path)
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

func (s *Server) reload(path string) error {
	loaded, err := config.LoadForReload(path)
	if err != nil {
		return err
	}
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	fromFile, err := s.persist.apply(loaded)
	if err != nil {
		return err
	}
	old := s.cfg.Load()
	next := s.keepRuntimeChanges(old, fromFile)
	if restart := config.RestartRequired(old, next); len(restart) > 0 {
		s.logger.Warn("config changes that need a restart are not applied until then", "settings", strings.Join(restart, ", "))
		keepRestartOnly(next, old)
	}
	if err := s.apply(next, true); err != nil {
		return err
	}
	s.variables.applyDefaults(s.fromFile, next)
	s.fromFile = fromFile
	s.logger.Info("config reloaded", "path", path)
	return nil
}

// keepRuntimeChanges returns the configuration a reload moves to: the file's (with the persisted
// values), except that a setting changed at run time (SET GLOBAL of a server setting or of a
// session setting's default) keeps its running value when the file did not change it. A reload
// changes what the file changed, nothing else. If the kept values do not fit with the file's,
// the file wins.
func (s *Server) keepRuntimeChanges(running, fromFile *config.Config) *config.Config {
	kept := map[string]string{}
	for _, name := range settingNames() {
		before, after, now := settingText(s.fromFile, name), settingText(fromFile, name), settingText(running, name)
		if before == after && now != after {
			kept[name] = now
		}
	}
	if len(kept) == 0 {
		return fromFile
	}
	next := fromFile.Clone()
	if err := next.SetValues(kept); err != nil {
		s.logger.Warn("settings changed with SET GLOBAL do not fit the reloaded file; the file's values apply", "err", err)
		return fromFile
	}
	return next
}

// settingNames are the names of every server setting and session setting.
func settingNames() []string {
	var names []string
	for _, st := range config.ServerSettings() {
		names = append(names, st.Name)
	}
	for _, st := range config.SessionSettings() {
		names = append(names, st.Name)
	}
	return names
}

// settingText is the value of a server setting or of a session setting's default, as text.
func settingText(cfg *config.Config, name string) string {
	if v, ok := cfg.ServerSettingValue(name); ok {
		return v
	}
	f, _ := cfg.SessionDefault(name)
	return number(f)
}

// keepRestartOnly keeps in next the running values of the settings that need a restart, so
// system.server_settings goes on showing what is really in force.
func keepRestartOnly(next, running *config.Config) {
	next.Listen = running.Listen
	next.AdminListen = running.AdminListen
	next.Users = running.Users
}
