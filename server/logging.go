package server

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/sirupsen/logrus"
)

// RouteEngineLogs sends go-mysql-server's logrus output through logger, at warn level and above
// (the engine logs every connection at info).
func RouteEngineLogs(logger *slog.Logger) {
	logrus.SetLevel(logrus.WarnLevel)
	logrus.SetOutput(io.Discard)
	logrus.StandardLogger().ReplaceHooks(logrus.LevelHooks{})
	logrus.AddHook(slogHook{logger})
}

type slogHook struct{ logger *slog.Logger }

func (h slogHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (h slogHook) Fire(e *logrus.Entry) error {
	level := slog.LevelWarn
	if e.Level <= logrus.ErrorLevel {
		level = slog.LevelError
	}
	attrs := make([]any, 0, 2*len(e.Data)+2)
	attrs = append(attrs, "source", "engine")
	for k, v := range e.Data {
		attrs = append(attrs, k, v)
	}
	h.logger.Log(context.Background(), level, strings.TrimSpace(e.Message), attrs...)
	return nil
}
