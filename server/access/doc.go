// Package access is who may log in and what they may do: the accounts of config.toml, their
// passwords, the delays after failed logins, and the privileges of a logged-in account.
//
// The model:
//
//   - Accounts. config.toml names the users, each with a password (plain, double SHA-1 or
//     SHA-256) and whether it is an admin; users change only with a restart. Accounts is the
//     protocol layer's mysql.AuthServer over them, with two methods: mysql_native_password
//     (plain or double-SHA-1 passwords) and caching_sha2_password (plain or SHA-256 ones;
//     when the scramble does not match, full authentication asks for the password itself,
//     which the protocol layer allows only over TLS, as MySQL does).
//
//   - A login is refused with 3159 without TLS under require_secure_transport, with 1045 for a
//     wrong password or an unknown user, and with 1227 for a non-admin on admin_listen. On
//     success the packet reader of package server/wire is told (MarkAuthenticated): its
//     pre-login limits end.
//
//   - LoginDelays is MySQL's connection_control: after a threshold of consecutive failed
//     logins from an address, each further answer to it waits, one second more per failure,
//     within [min, max]; a success resets the address. MySQL logins and the HTTP dashboard's
//     basic auth (CheckHTTPAdmin) count together.
//
//   - Privileges (privileges.go, whose opening table is the whole model): there are no GRANTs;
//     an account is an admin or not. GrantPrivileges puts the accounts into the engine's
//     privilege tables, which the engine checks while it builds a plan, and Authorization gives
//     its refusals MySQL's numbers (1044, 1142, 1227). What grants cannot express (variable
//     scopes, databases, account statements, KILL, files under secure_file_priv) PlanCheck
//     checks on each statement's finished plan, once per statement (CheckedPlans), just before
//     it runs.
//
//   - SecureFiles resolves the files of SELECT ... INTO OUTFILE, LOAD DATA, LOAD_FILE and SYSTEM
//     BACKUP inside secure_file_priv, symbolic links and ".." resolved first.
//
// The server wires these into the engine (server.go) and asks PlanCheck from its plan builder. The
// package imports server/config, server/statement, server/wire and mysqlerr, never server.
package access
