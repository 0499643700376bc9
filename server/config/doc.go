// Package config is the configuration of overloadsql: the server settings, the defaults and
// constraints of the session settings, and the users.
//
// # Sources and precedence
//
// A Config starts from the built-in values (Default). A config file (Load, Parse) overrides the
// keys it sets; [[users]], when present, replace the built-in user "default". Values persisted by
// SET PERSIST (LoadPersisted, ApplyPersisted) are applied last and win over the file, so the
// caller applies them again after every reload of the file.
//
// # Strict loading
//
// A file is accepted whole or not at all. An unknown key, a value of the wrong type, or a value
// that fails Validate is an error that names the file, the line and the key
// ("config.toml:7: unknown key "listn" (did you mean "listen"?)"), with every problem of the file
// listed, in line order. Integers are accepted where a number with a fraction is expected. A
// running server keeps its current Config when a new one fails to load.
//
// # Catalogs
//
// The server settings (ServerSettings: the top-level keys and those of
// [resource_overload_warnings]) and the session settings (SessionSettings) are catalogs in this
// package: system.server_settings and system.settings show them, and SET GLOBAL / SET PERSIST go
// through SetServerSetting and SetSessionDefault, which take text, check it like the file would
// and leave the Config unchanged on error. Values are shown in the unit of their key: seconds
// for *_s and *_seconds, milliseconds for *_ms, microseconds for os_cpu_busy_time_threshold,
// bytes for memory.
//
// # Reloadable and restart-only
//
// Every server setting is reloadable except listen, admin_listen and http_listen, which the
// listeners bind once, and metric_log_retention_s, which sizes the history once; users are also
// read once. RestartRequired lists what a new Config changes that only a
// restart applies, so that a reload can apply the rest and say what it could not.
//
// # Persisted overrides
//
// SET PERSIST keeps name = "value" entries in persisted_settings.toml beside the config file
// (PersistedPath). SavePersisted writes a temp file in the same directory, syncs it and renames
// it over the old file, then syncs the directory: after a crash the file is either the old one
// or the new one. A temp file left by a crash is removed by the next LoadPersisted.
//
// # Watching
//
// Watch follows the config path through symlinks: it watches the directory of the path, of every
// symlink on the way and of the file it resolves to, and resolves the path again after every
// event, because editors replace a file by renaming a new one over it and a Kubernetes ConfigMap
// volume updates by renaming a "..data" symlink to a new directory. It compares the content (a
// hash), not events, and reports a change only once the new content has stayed the same for
// WatchStable, so a file written in several steps is not applied half written; nothing is
// reported while the file is absent. The caller reloads in onChange.
//
// # Reading files
//
// The config and the persisted-settings file are read only if they are regular files of at most
// MaxFileSize bytes, opened non-blocking: a FIFO or a device at the config path is refused
// instead of blocking the reader. LoadForReload also refuses an empty file.
package config
