package server

import (
	"strconv"
	"unicode/utf8"
)

// What a client sent comes back in an error message only clipped, as MySQL's messages quote
// it ('%-.200s' for a variable's value, near '%-.80s' for a syntax error, '%-.192s' for a lock
// name), and no message goes to a client longer than maxErrorMessage (clientError): a message
// that echoed a value whole would be as long as the value, and a client whose packet limit is
// smaller than the error packet reads it as a lost connection.
const (
	// quotedValue is how much of a value a message quotes (ER_WRONG_VALUE_FOR_VAR's width).
	quotedValue = 200
	// quotedSyntax is how much of the text after a syntax error a message quotes.
	quotedSyntax = 80
	// quotedLockName is how much of a lock name a message quotes.
	quotedLockName = 192
	// quotedUser is how much of a user name a message quotes (ER_ACCESS_DENIED_ERROR's width):
	// the handshake's user name is the one input sent before authentication.
	quotedUser = 48
	// maxErrorMessage bounds every message sent to a client, in bytes: far above the longest
	// of overloadsql's own (error 202's, with all the settings it names), far below any packet
	// limit.
	maxErrorMessage = 4096
)

// clipped is s cut to at most n bytes on a character boundary, followed by "..." when it was
// cut.
func clipped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// clippedMessage is an error message cut to maxErrorMessage, saying how long it was.
func clippedMessage(msg string) string {
	if len(msg) <= maxErrorMessage {
		return msg
	}
	return clipped(msg, maxErrorMessage) + " (message of " + strconv.Itoa(len(msg)) + " bytes cut)"
}
