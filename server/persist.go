package server

import (
	"fmt"
	"sync"

	"overloadsql/server/config"
)

// persistence keeps the values set with SET PERSIST in a file beside the config; they win over
// the config file at start and at every reload.
type persistence struct {
	path string
	mu   sync.Mutex
}

func newPersistence(configPath string) *persistence {
	return &persistence{path: config.PersistedPath(configPath)}
}

// apply returns a copy of cfg with the persisted values on top.
func (p *persistence) apply(cfg *config.Config) (*config.Config, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	values, err := config.LoadPersisted(p.path)
	if err != nil {
		return nil, err
	}
	out := cfg.Clone()
	if err := out.ApplyPersisted(values); err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	return out, nil
}

// save records the given name = value entries, atomically and together, after checking that
// running with every persisted value on top of cfg still validates: a value that would stop the
// next start is refused now. On error the file is as it was.
func (p *persistence) save(cfg *config.Config, changes map[string]string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	values, err := config.LoadPersisted(p.path)
	if err != nil {
		return err
	}
	for name, value := range changes {
		values[name] = value
	}
	if err := cfg.Clone().ApplyPersisted(values); err != nil {
		return fmt.Errorf("not saved, the server would not start with it: %w", err)
	}
	return config.SavePersisted(p.path, values)
}
