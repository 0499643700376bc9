package mysqlerr

import (
	"errors"

	"github.com/dolthub/vitess/go/mysql"
)

// states is every error number overloadsql sends (its own errors and the engine's, as
// ForClient leaves them), with MySQL 8's SQLSTATE for it.
var states = map[int]string{
	// overloadsql's own, in ClickHouse's numbering.
	ERTooManySimultaneousQueries: mysql.SSUnknownSQLState, // 202
	ERMemoryLimitExceeded:        mysql.SSUnknownSQLState, // 241
	ERServerOverloaded:           mysql.SSUnknownSQLState, // 745

	// Connections and the protocol.
	mysql.ERConCount:              "08004",                 // 1040
	mysql.EROutOfResources:        mysql.SSUnknownSQLState, // 1041
	ERHandshakeError:              mysql.SSNetError,        // 1043
	mysql.ERUnknownComError:       mysql.SSNetError,        // 1047
	mysql.ERNetPacketTooLarge:     mysql.SSNetError,        // 1153
	ERUnknownStmtHandler:          mysql.SSUnknownSQLState, // 1243
	ERPsManyParam:                 mysql.SSUnknownSQLState, // 1390
	ERMaxPreparedStmtCountReached: mysql.SSClientError,     // 1461
	ERSecureTransportRequired:     mysql.SSUnknownSQLState, // 3159

	// Access.
	mysql.ERDBAccessDenied:          mysql.SSClientError,       // 1044
	mysql.ERAccessDeniedError:       mysql.SSAccessDeniedError, // 1045
	mysql.ERNoSuchThread:            mysql.SSUnknownSQLState,   // 1094
	mysql.ERKillDenied:              mysql.SSUnknownSQLState,   // 1095
	ERTableAccessDenied:             mysql.SSClientError,       // 1142
	mysql.ERSpecifiedAccessDenied:   mysql.SSClientError,       // 1227
	mysql.EROptionPreventsStatement: mysql.SSUnknownSQLState,   // 1290
	ERClientLocalFilesDisabled:      mysql.SSClientError,       // 3948
	ERCantCreateFile:                mysql.SSUnknownSQLState,   // 1004
	mysql.ERTextFileNotReadable:     mysql.SSUnknownSQLState,   // 1085
	mysql.ERFileExists:              mysql.SSUnknownSQLState,   // 1086

	// Storage.
	ERErrorOnWrite:         mysql.SSUnknownSQLState, // 1026
	mysql.ERRecordFileFull: mysql.SSUnknownSQLState, // 1114

	// Statements, schemas and data.
	mysql.ERNoDb:                     mysql.SSNoDB,                 // 1046
	mysql.ERBadNullError:             mysql.SSConstraintViolation,  // 1048
	mysql.ERBadDb:                    mysql.SSClientError,          // 1049
	mysql.ERTableExists:              "42S01",                      // 1050
	mysql.ERBadTable:                 mysql.SSUnknownTable,         // 1051
	mysql.ERBadFieldError:            mysql.SSBadFieldError,        // 1054
	mysql.ERDupFieldName:             mysql.SSDupFieldName,         // 1060
	mysql.ERDupKeyName:               mysql.SSClientError,          // 1061
	mysql.ERDupEntry:                 mysql.SSDupKey,               // 1062
	mysql.ERParseError:               mysql.SSClientError,          // 1064
	mysql.ERMultiplePriKey:           mysql.SSClientError,          // 1068
	mysql.ERTooManyKeys:              mysql.SSClientError,          // 1069
	mysql.ERTooLongKey:               mysql.SSClientError,          // 1071
	mysql.ERWrongSubKey:              mysql.SSUnknownSQLState,      // 1089
	mysql.ERUnknownError:             mysql.SSUnknownSQLState,      // 1105
	mysql.ERTooManyTables:            mysql.SSUnknownSQLState,      // 1116
	mysql.ERTooManyFields:            mysql.SSUnknownSQLState,      // 1117
	mysql.ERWrongValueCountOnRow:     mysql.SSWrongValueCountOnRow, // 1136
	mysql.ERNoSuchTable:              mysql.SSUnknownTable,         // 1146
	mysql.ERSyntaxError:              mysql.SSClientError,          // 1149
	mysql.ERBlobKeyWithoutLength:     mysql.SSClientError,          // 1170
	mysql.ERUnknownSystemVariable:    mysql.SSUnknownSQLState,      // 1193
	ERTransCacheFull:                 mysql.SSUnknownSQLState,      // 1197
	mysql.ERLockWaitTimeout:          mysql.SSUnknownSQLState,      // 1205
	mysql.ERLockDeadlock:             mysql.SSLockDeadlock,         // 1213
	mysql.ERGlobalVariable:           mysql.SSUnknownSQLState,      // 1229
	mysql.ERWrongValueForVar:         mysql.SSClientError,          // 1231
	mysql.ERNotSupportedYet:          mysql.SSClientError,          // 1235
	mysql.ERIncorrectGlobalLocalVar:  mysql.SSUnknownSQLState,      // 1238
	mysql.EROperandColumns:           mysql.SSWrongNumberOfColumns, // 1241
	mysql.ERSubqueryNo1Row:           mysql.SSWrongNumberOfColumns, // 1242
	mysql.ERWarnDataOutOfRange:       mysql.SSDataOutOfRange,       // 1264
	mysql.ERTruncatedWrongValue:      mysql.SSUnknownSQLState,      // 1292 (a warning)
	ERWarnAllowedPacketOverflowed:    mysql.SSUnknownSQLState,      // 1301 (a warning)
	mysql.ERSPDoesNotExist:           mysql.SSClientError,          // 1305
	mysql.ERQueryInterrupted:         mysql.SSQueryInterrupted,     // 1317
	mysql.ERDataTooLong:              mysql.SSDataTooLong,          // 1406
	mysql.ERRowIsReferenced2:         mysql.SSConstraintViolation,  // 1451
	mysql.ErNoReferencedRow2:         mysql.SSConstraintViolation,  // 1452
	ERTooHighLevelOfNestingForSelect: mysql.SSUnknownSQLState,      // 1473
	ERDropIndexFK:                    mysql.SSUnknownSQLState,      // 1553
	mysql.ERDataOutOfRange:           mysql.SSDataOutOfRange,       // 1690
	ERIndexCorrupt:                   mysql.SSUnknownSQLState,      // 1712
	ERFKColumnCannotDrop:             mysql.SSUnknownSQLState,      // 1828
	ERFKColumnCannotDropChild:        mysql.SSUnknownSQLState,      // 1829
	ERGISInvalidData:                 "22023",                      // 3037
	ERUserLockWrongName:              mysql.SSClientError,          // 3057
	ERUserLockDeadlock:               mysql.SSLockDeadlock,         // 3058
	ERJSONUsedAsKey:                  mysql.SSClientError,          // 3152
	ERCheckConstraintViolated:        mysql.SSUnknownSQLState,      // 3819
	ERCheckConstraintDupName:         mysql.SSUnknownSQLState,      // 3822
}

// State is MySQL 8's SQLSTATE for error number num; HY000 (MySQL's "general error") for a
// number not listed.
func State(num int) string {
	if s, ok := states[num]; ok {
		return s
	}
	return mysql.SSUnknownSQLState
}

// New is the error num with MySQL's SQLSTATE for it and the message format, args (as
// fmt.Sprintf).
func New(num int, format string, args ...any) *mysql.SQLError {
	return mysql.NewSQLError(num, State(num), format, args...)
}

// Number is the MySQL error number err carries: 0 for nil, -1 for an error that carries none.
func Number(err error) int {
	if err == nil {
		return 0
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return se.Num
	}
	return -1
}
