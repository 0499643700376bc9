package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

const persistedFile = "persisted_settings.toml"

// PersistedPath returns where SET PERSIST keeps its values: persisted_settings.toml beside the
// config file, or in the working directory when the server runs on built-in defaults.
func PersistedPath(configPath string) string {
	if configPath == "" {
		return persistedFile
	}
	return filepath.Join(filepath.Dir(configPath), persistedFile)
}

// LoadPersisted reads the persisted values (name = "value"). A missing file means none. Temp
// files left by an interrupted SavePersisted are removed: the rename never happened, so the
// file itself still holds the last complete write.
func LoadPersisted(path string) (map[string]string, error) {
	if err := removeStrayTemps(path); err != nil {
		return nil, err
	}
	data, err := readRegularFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read persisted settings: %w", err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	lines := scanKeyLines(string(data))
	values := make(map[string]string, len(raw))
	for _, name := range sortedKeys(raw) {
		switch v := raw[name].(type) {
		case string:
			values[name] = v
		case int64, float64:
			values[name] = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("%s:%d: %s: expected a value as text (name = \"value\"), got %s",
				path, lines.line([]string{name}), name, describe(v))
		}
	}
	return values, nil
}

func removeStrayTemps(path string) error {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+".tmp-"
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("look for stray temp files of %s: %w", path, err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stray temp file: %w", err)
		}
	}
	return nil
}

// SavePersisted replaces the file with values, atomically: a reader (or a crash) sees either the
// old file or the new one, never a part of it.
func SavePersisted(path string, values map[string]string) (err error) {
	var body bytes.Buffer
	body.WriteString("# Written by SET PERSIST. Values here override the config file.\n")
	if err := toml.NewEncoder(&body).Encode(values); err != nil {
		return fmt.Errorf("encode persisted settings: %w", err)
	}

	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save persisted settings: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(body.Bytes()); err != nil {
		return fmt.Errorf("save persisted settings: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save persisted settings: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save persisted settings: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save persisted settings: %w", err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// ApplyPersisted sets each persisted value, in name order, over the values from the config file:
// persisted values win. A name may be a server setting or a session setting (its default). The
// result is validated as a whole, so the order of the entries does not matter; on error c is
// unchanged and the error names the key.
func (c *Config) ApplyPersisted(values map[string]string) error {
	n := c.Clone()
	for _, name := range sortedKeys(values) {
		if err := n.set(name, values[name]); err != nil {
			return fmt.Errorf("persisted setting %s: %w", name, err)
		}
	}
	if err := n.Validate(); err != nil {
		return fmt.Errorf("persisted settings: %w", err)
	}
	*c = *n
	return nil
}
