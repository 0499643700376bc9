package mysqlerr

// Error numbers overloadsql sends that vitess's mysql package has no constant for. MySQL's
// numbers keep MySQL 8's names (ER_TABLEACCESS_DENIED_ERROR is ERTableAccessDenied).
const (
	// ERServerOverloaded (745, ClickHouse's SERVER_OVERLOADED): a statement refused because
	// the CPU is overloaded.
	ERServerOverloaded = 745
	// ERTooManySimultaneousQueries (202, ClickHouse's TOO_MANY_SIMULTANEOUS_QUERIES): a
	// statement that got no CPU slot in time.
	ERTooManySimultaneousQueries = 202
	// ERMemoryLimitExceeded (241, ClickHouse's MEMORY_LIMIT_EXCEEDED): a statement over its
	// session's memory limit.
	ERMemoryLimitExceeded = 241

	ERCantCreateFile                 = 1004 // ER_CANT_CREATE_FILE
	ERErrorOnWrite                   = 1026 // ER_ERROR_ON_WRITE
	ERHandshakeError                 = 1043 // ER_HANDSHAKE_ERROR
	ERTableAccessDenied              = 1142 // ER_TABLEACCESS_DENIED_ERROR
	ERTransCacheFull                 = 1197 // ER_TRANS_CACHE_FULL
	ERUnknownStmtHandler             = 1243 // ER_UNKNOWN_STMT_HANDLER
	ERWarnAllowedPacketOverflowed    = 1301 // ER_WARN_ALLOWED_PACKET_OVERFLOWED (a warning)
	ERPsManyParam                    = 1390 // ER_PS_MANY_PARAM
	ERMaxPreparedStmtCountReached    = 1461 // ER_MAX_PREPARED_STMT_COUNT_REACHED
	ERTooHighLevelOfNestingForSelect = 1473 // ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT
	ERDropIndexFK                    = 1553 // ER_DROP_INDEX_FK
	ERIndexCorrupt                   = 1712 // ER_INDEX_CORRUPT
	ERFKColumnCannotDrop             = 1828 // ER_FK_COLUMN_CANNOT_DROP
	ERFKColumnCannotDropChild        = 1829 // ER_FK_COLUMN_CANNOT_DROP_CHILD
	ERGISInvalidData                 = 3037 // ER_GIS_INVALID_DATA
	ERUserLockWrongName              = 3057 // ER_USER_LOCK_WRONG_NAME
	ERUserLockDeadlock               = 3058 // ER_USER_LOCK_DEADLOCK
	ERJSONUsedAsKey                  = 3152 // ER_JSON_USED_AS_KEY
	ERSecureTransportRequired        = 3159 // ER_SECURE_TRANSPORT_REQUIRED
	ERCheckConstraintViolated        = 3819 // ER_CHECK_CONSTRAINT_VIOLATED
	ERCheckConstraintDupName         = 3822 // ER_CHECK_CONSTRAINT_DUP_NAME
	ERClientLocalFilesDisabled       = 3948 // ER_CLIENT_LOCAL_FILES_DISABLED
)
