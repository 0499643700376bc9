package server

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"overloadsql/admission"
	"overloadsql/engine"
	"overloadsql/engine/functions"
	"overloadsql/engine/pointplan"
	"overloadsql/httpapi"
	"overloadsql/overload"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/data"
	"overloadsql/server/memlimit"
	"overloadsql/server/userlock"
	"overloadsql/server/wire"
	"overloadsql/storage"
	"overloadsql/tables"
	"overloadsql/warnings"

	"github.com/cockroachdb/pebble/v2/vfs"
	sqle "github.com/dolthub/go-mysql-server"
	gms "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/mysql"
)

// mainDatabase holds user data and is every session's database at login.
const mainDatabase = access.MainDatabase

// Options are the parts of a Server a caller may replace; zero values take the defaults.
type Options struct {
	Logger *slog.Logger
	// Random draws the numbers that decide rejections and drops, uniform in [0, 1).
	Random func() float64
	// StorageFS is the filesystem of data_dir; nil is the operating system's. Tests use
	// vfs.NewMem.
	StorageFS vfs.FS
}

// Server is an overloadsql server: listeners, engine, sampler and warnings.
type Server struct {
	logger       *slog.Logger
	checkedPlans access.CheckedPlans
	cfg          atomic.Pointer[config.Config]
	persist      *persistence
	random       func() float64
	started      time.Time
	counters     counters

	engine    *sqle.Engine
	points    *pointplan.Planner // the engine's plans of point and range reads
	protocol  *gms.Server
	listener  *wire.Listener
	gate      *wire.Gate
	auth      *access.Accounts
	certs     *wire.Certificates
	variables *variables
	http      *httpapi.Server // nil when http_listen is off

	sampler   *overload.Sampler
	admission *admission.Controller
	registry  *warnings.Registry
	monitor   *warnings.Monitor
	recorder  *recorder // the history: system.*_log and the dashboard

	rejectLog    *rateLimitedLog
	admissionLog *rateLimitedLog
	memoryLog    *rateLimitedLog

	// memory decides when the heap is over the memory limit; statements are the ordinary
	// statements running now, which it cancels then (package server/memlimit).
	memory     *overload.MemoryGuard
	statements *memlimit.Statements
	// sessionAccounts are the memory accounts of the sessions and of the server
	// (package server/memlimit); the memory guard's checks set their limits.
	sessionAccounts *memlimit.Accounts
	// userLocks are the user-level locks of GET_LOCK (userlocks.go).
	userLocks *userlock.Table
	// writes is the write lock of the stored tables: one transaction writes at a time
	// (transactions.go).
	writes data.WriteLock
	// lockWaits are the statements waiting for the write lock, for the process list.
	lockWaits data.LockWaits
	// store holds the user databases on data_dir (store.go, package server/data).
	store *storage.Store
	// offHeap is the store's memory outside the Go heap, for the memory guard.
	offHeap data.OffHeap
	// reloadMu makes reloads one at a time; see the lock order in the package comment.
	reloadMu sync.Mutex
	// settingsMu is the settings lock: every change of the running configuration, of the
	// simulation and of the engine's globals that show them holds it.
	settingsMu sync.Mutex
	// fromFile is the configuration as last loaded from the file (with the persisted values),
	// before any SET GLOBAL; guarded by settingsMu.
	fromFile *config.Config
	// staged are the global changes of the statements running now (see commitSettings).
	staged staging
	// reloadFailure is the warning of the last reload while it failed, nil after a good one.
	reloadFailure atomic.Pointer[warnings.Warning]
	// blind are the keys of the warnings about unavailable measurement sources; only the
	// sampler's goroutine touches it.
	blind map[string]bool

	shutdown     chan struct{} // closed by Shutdown
	shutdownOnce sync.Once
	storeOnce    sync.Once   // closes the store at the end of Shutdown
	stopping     atomic.Bool // set when Shutdown starts: /ready answers 503
	serving      atomic.Bool
	stopped      chan struct{} // closed when Serve returns
}

// New builds a server from cfg and binds its listeners; Serve starts it.
func New(cfg *config.Config, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Random == nil {
		opts.Random = rand.Float64
	}
	s := &Server{
		logger:   opts.Logger,
		random:   opts.Random,
		started:  time.Now(),
		registry: warnings.NewRegistry(),
		shutdown: make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	s.persist = newPersistence(cfg.Path)
	running, err := s.persist.apply(cfg)
	if err != nil {
		return nil, err
	}
	s.cfg.Store(running)
	s.fromFile = running
	s.recorder = newRecorder(running.MetricLogRetention)
	s.registry.SetObserver(s.recorder.observeWarning)
	s.rejectLog = newRateLimitedLog(s.logger, "statements rejected: CPU overloaded")
	s.admissionLog = newRateLimitedLog(s.logger, "statements rejected: no CPU slot")
	s.memoryLog = newRateLimitedLog(s.logger, "memory limit")
	s.memory = overload.NewMemoryGuard(nil, nil)
	s.statements = memlimit.NewStatements()
	s.sessionAccounts = memlimit.NewAccounts()
	s.userLocks = userlock.New()
	s.sessionAccounts.Adjust(running.MaxServerMemoryUsage, 0, running.MaxMemoryUsageForSession)
	s.sessionAccounts.ConfigureWorkloads(running)
	s.admission = admission.New(admissionLimits(running), admission.Options{})

	s.monitor = warnings.NewMonitor(s.registry, warningsConfig(running), s.logger)
	if err := s.applySuppress(running); err != nil {
		return nil, err
	}
	s.sampler = overload.NewSampler(overload.Config{
		Logger:            s.logger,
		Settings:          samplerSettings(running),
		OnSample:          s.onSample,
		RunningStatements: func() int { return int(s.counters.running.Load()) },
		QueueWait:         s.admission.QueueWait,
	})

	s.certs = &wire.Certificates{Logger: s.logger}
	if running.Path == "" && running.TLSCertFile == "" {
		err = s.certs.InMemory()
	} else {
		err = s.certs.Load(running)
	}
	if err != nil {
		return nil, err
	}
	s.auth = access.NewAccounts(running.Users)
	s.auth.RequireSecure = func() bool { return s.cfg.Load().RequireSecureTransport == config.SwitchOn }
	s.auth.Delays = access.NewLoginDelays(s.loginDelaySettings, time.Sleep, &s.counters.delayedLogins)
	s.variables = newVariables(s)
	collation, err := useCollation(running.CollationServer)
	if err != nil {
		return nil, err
	}
	if err := useIdentity(); err != nil {
		return nil, err
	}
	if err := s.openStore(running, opts.StorageFS, collation); err != nil {
		return nil, err
	}
	// From here on, a failure closes the store again: a second New on the same data_dir (a
	// test, or a retry) must find it free.
	built := false
	defer func() {
		if !built {
			s.closeStore()
		}
	}()
	s.engine = s.buildEngine(running, collation)
	s.sessionAccounts.Uncache = func(sess sql.Session, key string) { sess.UnprepareQuery(key) }
	if err := s.variables.register(); err != nil {
		return nil, err
	}
	s.boundGroupConcat()
	registerDiagnosticVariables()
	sql.SystemVariables.AddSystemVariables(data.LockWaitTimeoutVariables())

	main, err := net.Listen("tcp", running.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (listen): %w", running.Listen, err)
	}
	var admin net.Listener
	if running.AdminListen != "" {
		if admin, err = net.Listen("tcp", running.AdminListen); err != nil {
			main.Close()
			return nil, fmt.Errorf("listen on %s (admin_listen): %w", running.AdminListen, err)
		}
	}
	limitsLog := newRateLimitedLog(s.logger, "client limits")
	limits := func() *wire.ClientLimits {
		return &wire.ClientLimits{
			MaxPacket:      func() int { return s.cfg.Load().MaxAllowedPacket },
			ConnectTimeout: func() time.Duration { return s.cfg.Load().ConnectTimeout },
			TLS:            s.certs.TLSConfig(),
			Handshakes: wire.NewHandshakes(func() int { return s.cfg.Load().MaxUnauthenticatedConnections },
				&s.counters.Counters, limitsLog.note),
			Counters: &s.counters.Counters,
			Log:      limitsLog.note,
		}
	}
	refusedLog := newRateLimitedLog(s.logger, "connections refused")
	s.gate = &wire.Gate{
		Settings: s.dropSettings,
		Overload: s.sampler.Overload,
		Random:   s.random,
		Counters: &s.counters.Counters,
		Log:      refusedLog.note,
		Limits:   limits(),
	}
	adminGate := &wire.AdminGate{
		Max:      func() int64 { return int64(s.cfg.Load().AdminMaxConnections) },
		Counters: &s.counters.Counters,
		Log:      refusedLog.note,
		Limits:   limits(),
	}
	s.listener = wire.NewListener(main, admin, s.gate, adminGate)
	if running.HTTPListen != "" {
		if s.http, err = httpapi.Listen(running.HTTPListen, httpapi.Options{
			State: httpState{s}, Logger: s.logger,
			Metrics: s.recorder.metrics, Warnings: s.recorder.warnings, Retention: running.MetricLogRetention,
			Authenticate: s.auth.CheckHTTPAdmin,
		}); err != nil {
			s.listener.Close()
			return nil, err
		}
	}

	interceptors := &gms.InterceptorChain{}
	interceptors.WithInterceptor(&interceptor{s: s})
	s.protocol, err = gms.NewServerWithHandler(gms.Config{
		Protocol:  "tcp",
		Address:   running.Listen,
		Version:   MySQLVersion,
		Listener:  s.listener,
		TLSConfig: s.certs.TLSConfig(),
		Options:   []gms.Option{interceptors.Option(), handlerOption(s.logger, s)},
		ProtocolListenerFactory: func(c gms.Config, lc mysql.ListenerConfig, sel gms.ServerEventListener) (gms.ProtocolListener, error) {
			lc.AuthServer = s.auth
			lc.Listener = wire.StatisticsListener{Listener: lc.Listener, Text: s.statisticsText}
			return gms.MySQLProtocolListenerFactory(c, lc, sel)
		},
	}, s.engine, s.newContext, s.sessionBuilder, eventListener{&s.counters}, func(h mysql.Handler) (mysql.Handler, error) {
		return connectionHandler{Handler: h, s: s}, nil
	})
	if err != nil {
		s.listener.Close()
		if s.http != nil {
			s.http.Close()
		}
		return nil, fmt.Errorf("start protocol server: %w", err)
	}
	built = true
	return s, nil
}

func (s *Server) buildEngine(cfg *config.Config, collation sql.CollationID) *sqle.Engine {
	provider := data.Provider{Provider: s.store.Provider(), System: s.systemDatabase()}
	engine.AddRules(engine.Hooks{AtomicRenames: data.AtomicRenames, Stopped: memlimit.Stop})
	overrides := sql.EngineOverrides{Builder: sql.BuilderOverrides{Parser: newSystemParser()}}
	e := sqle.New(analyzer.NewBuilder(
		functions.NewBoundedProvider(provider, func() int { return s.cfg.Load().MaxAllowedPacket }, memlimit.Stop),
	).AddOverrides(overrides).Build(), nil)
	engine.WrapEngineRules(e.Analyzer)
	s.points = pointplan.Install(e.Analyzer, pointplan.Options{VerifyEvery: pointPlanVerifyEvery, Logger: s.logger})
	functions.Override(e, engine.CheckedFunctions())
	s.useUserLocks(e)
	access.GrantPrivileges(e.Analyzer.Catalog.MySQLDb, cfg.Users)
	e.Analyzer.Catalog.AuthHandler = access.Authorization{AuthorizationHandler: e.Analyzer.Catalog.AuthHandler, Allowed: data.RefuseRenameElsewhere}
	yielder, err := newYielder(func() int { return int(s.counters.running.Load()) })
	if err != nil {
		s.logger.Warn("statements on busy processors will not let the runtime poll the network", "err", err)
	}
	privileges := access.PlanCheck{Accounts: s.auth, Processes: func() []sql.Process { return e.ProcessList.Processes() }, Config: s.cfg.Load}
	e.Analyzer.ExecBuilder.PriorityBuilder = checkedBuilder{yielder: yielder, s: s, base: e.Analyzer.ExecBuilder, privileges: privileges}
	runner := procedureRunner{next: e, s: s}
	e.Analyzer.Runner = runner
	e.Analyzer.ExecBuilder.Runner = runner
	return e
}

// systemDatabase builds `system`, each table reading the server's live state.
func (s *Server) systemDatabase() *tables.Database {
	return tables.NewDatabase(
		tables.AsynchronousMetrics(s.asynchronousMetrics),
		tables.Events(s.events),
		tables.Metrics(s.gauges),
		tables.Warnings(s.registry.List),
		tables.AsynchronousMetricLog(s.asynchronousMetricLog),
		tables.MetricLog(s.metricLog),
		tables.WarningLog(s.warningLog),
		tables.ServerSettings(s.serverSettings),
		tables.Settings(s.variables.rows),
		tables.Workloads(s.workloadRows),
	)
}

func (s *Server) sessionBuilder(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	base, err := sql.BaseSessionFromConnection(ctx, conn, addr)
	if err != nil {
		return nil, err
	}
	base.SetCurrentDatabase(mainDatabase)
	if err := wire.SetTLSStatus(base, conn); err != nil {
		return nil, err
	}
	client := &client{persisted: map[string]interface{}{}}
	client.session = s.store.NewSession(base).SetGlobals(client.persisted)
	// A COM_RESET_CONNECTION builds a new session: the old one's variables are gone, and its
	// open transaction is rolled back, as in MySQL.
	if old := clientOf(conn); old != nil {
		old.session.Close()
		s.sessionAccounts.End(old.session)
	}
	s.beginSessionMemory(conn, client.session)
	conn.ClientData = client
	// The engine names a connection's user in its process list only after a COM_INIT_DB.
	s.engine.ProcessList.ConnectionReady(client.session)
	return client.session, nil
}

// newContext builds the engine's context of a statement. Its process list shows the statements
// that wait for the write lock (lockWaitProcesses); a non-admin's shows only the user's own
// connections in SHOW PROCESSLIST and information_schema.processlist.
func (s *Server) newContext(ctx context.Context, opts ...sql.ContextOption) *sql.Context {
	c := sql.NewContext(ctx, opts...)
	if c.Session != nil && c.ProcessList != nil {
		c.ProcessList = data.LockWaitProcesses{ProcessList: c.ProcessList, Waits: &s.lockWaits}
		if user := c.Session.Client().User; !s.auth.IsAdmin(user) {
			c.ProcessList = ownProcesses{ProcessList: c.ProcessList, user: user}
		}
	}
	return c
}

// ownProcesses is a process list that shows one user's connections only.
type ownProcesses struct {
	sql.ProcessList
	user string
}

func (p ownProcesses) Processes() []sql.Process {
	all := p.ProcessList.Processes()
	own := all[:0]
	for _, proc := range all {
		if proc.User == p.user {
			own = append(own, proc)
		}
	}
	return own
}

// client is what the server keeps on a connection: its session, once the engine has built it,
// the values the session's SET PERSIST statements stored, and the session's rejection
// thresholds, cached for the statement path (see thresholds).
type client struct {
	session   *storage.Session
	persisted map[string]interface{}
	// ctx is the session's context outside a statement (sessionContext); only the connection's
	// goroutine uses it.
	ctx *sql.Context

	cached atomic.Bool
	lo, hi atomic.Uint64 // math.Float64bits

	errorLog logBudget // failed statements this connection may still log
}

// sessionContext is a context of the session for what the server does to it between
// statements: the diagnostics variables, the end of a transaction (transactions.go).
func (c *client) sessionContext() *sql.Context {
	if c.ctx == nil {
		c.ctx = sql.NewContext(context.Background(), sql.WithSession(c.session))
	}
	return c.ctx
}

// thresholds returns the session's min and max ratio to throw. They are read from the session
// once and cached: only a statement that names them can change them, and the interceptor
// forgets the cache after such a statement.
func (c *client) thresholds() (lo, hi float64) {
	if c.cached.Load() {
		return math.Float64frombits(c.lo.Load()), math.Float64frombits(c.hi.Load())
	}
	lo, hi = throwSettings(c.session)
	c.lo.Store(math.Float64bits(lo))
	c.hi.Store(math.Float64bits(hi))
	c.cached.Store(true)
	return lo, hi
}

// clientOf returns a connection's client state, nil before its first statement.
func clientOf(c *mysql.Conn) *client {
	cl, _ := c.ClientData.(*client)
	return cl
}

// currentDatabase is a connection's current database; main before its first statement.
func currentDatabase(c *mysql.Conn) string {
	if cl := clientOf(c); cl != nil {
		return cl.session.GetCurrentDatabase()
	}
	return mainDatabase
}

// Config is the running configuration (after persisted overrides).
func (s *Server) Config() *config.Config { return s.cfg.Load() }

// Addr is the main listener's address.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// AdminAddr is the admin listener's address, nil when admin_listen is off.
func (s *Server) AdminAddr() net.Addr {
	return s.listener.AdminAddr()
}

// HTTPAddr is the HTTP listener's address, nil when http_listen is off.
func (s *Server) HTTPAddr() net.Addr {
	if s.http == nil {
		return nil
	}
	return s.http.Addr()
}

// Serve samples and serves until Shutdown (or ctx is done), then returns nil. An error that
// ends a listener's accept loop (anything but a temporary shortage) ends Serve with that error,
// after the listeners are closed: a server whose main or admin listener is dead must not look
// alive.
func (s *Server) Serve(ctx context.Context) error {
	s.serving.Store(true)
	defer close(s.stopped)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sampling := make(chan struct{})
	go func() {
		defer close(sampling)
		s.sampler.Run(ctx)
		s.sampler.Close()
	}()
	adjusting := make(chan struct{})
	go func() {
		defer close(adjusting)
		s.admission.Run(ctx, admission.NewGoScheduler(), admissionTick, func(err error) {
			s.logger.Warn("CPU slots no longer adapt; the count stays where it is", "err", err)
		})
	}()
	guarding := make(chan struct{})
	go func() {
		defer close(guarding)
		s.guardMemory(ctx)
	}()
	defer func() {
		cancel()
		<-sampling
		<-adjusting
		<-guarding
	}()
	if s.cfg.Load().Path != "" {
		if err := config.Watch(ctx, s.cfg.Load().Path, s.logger, func() { s.Reload("file changed") }); err != nil {
			s.logger.Warn("config file is not watched; reload with SIGHUP or SYSTEM RELOAD CONFIG", "err", err)
		}
	}
	if s.http != nil {
		go s.serveHTTP()
	}
	s.logger.Info("overloadsql ready", "listen", s.Addr().String(), "admin_listen", addrString(s.AdminAddr()),
		"http_listen", addrString(s.HTTPAddr()))
	// The protocol layer's own Start would only add log lines about LOAD DATA.
	s.protocol.Listener.Accept() // returns when the listener is closed or an accept loop failed
	if err := s.listener.Failure(); err != nil {
		s.stopping.Store(true)
		s.listener.Close()
		if s.http != nil {
			_ = s.http.Close()
		}
		return err
	}
	select {
	case <-ctx.Done():
	case <-s.shutdown:
	}
	return nil
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// Shutdown stops accepting connections, then waits for running statements to finish, at most
// until ctx is done or shutdown_timeout_s has passed. The HTTP listener answers /ready with 503
// meanwhile, and stops last.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	s.listener.Close()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Load().ShutdownTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var err error
wait:
	for s.counters.running.Load() > 0 {
		select {
		case <-ctx.Done():
			err = fmt.Errorf("shutdown: %d statement(s) still running: %w", s.counters.running.Load(), ctx.Err())
			s.logger.Warn("shutdown timeout: stopping with statements still running", "err", err)
			break wait
		case <-tick.C:
		}
	}
	if s.http != nil {
		if herr := s.shutdownHTTP(); herr != nil {
			s.logger.Warn("shutdown", "err", herr)
		}
	}
	s.shutdownOnce.Do(func() { close(s.shutdown) })
	if s.serving.Load() {
		<-s.stopped
	}
	s.storeOnce.Do(s.closeStore)
	return err
}

// eventListener counts connections and statements for system.events and system.metrics.
type eventListener struct{ c *counters }

func (e eventListener) ClientConnected()    { e.c.connections.Add(1) }
func (e eventListener) ClientDisconnected() { e.c.connections.Add(-1) }
func (e eventListener) QueryStarted()       { e.c.queries.Add(1) }
func (e eventListener) QueryCompleted(success bool, _ time.Duration) {
	if !success {
		e.c.failedQueries.Add(1)
	}
}
