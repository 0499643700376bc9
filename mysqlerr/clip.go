package mysqlerr

import (
	"strconv"
	"unicode/utf8"
)

// What a client sent comes back in an error message only clipped, as MySQL's messages quote
// it ('%-.200s' for a variable's value, near '%-.80s' for a syntax error, '%-.192s' for a lock
// name), and no message goes to a client longer than MaxMessage (ForClient): a message
// that echoed a value whole would be as long as the value, and a client whose packet limit is
// smaller than the error packet reads it as a lost connection.
const (
	// QuotedValue is how much of a value a message quotes (ER_WRONG_VALUE_FOR_VAR's width).
	QuotedValue = 200
	// QuotedSyntax is how much of the text after a syntax error a message quotes.
	QuotedSyntax = 80
	// QuotedLockName is how much of a lock name a message quotes.
	QuotedLockName = 192
	// QuotedUser is how much of a user name a message quotes (ER_ACCESS_DENIED_ERROR's width):
	// the handshake's user name is the one input sent before authentication.
	QuotedUser = 48
	// MaxMessage bounds every message sent to a client, in bytes: far above the longest
	// of overloadsql's own (error 202's, with all the settings it names), far below any packet
	// limit.
	MaxMessage = 4096
)

// Clipped is s cut to at most n bytes on a character boundary, followed by "..." when it was
// cut.
func Clipped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// clippedMessage is an error message cut to MaxMessage, saying how long it was.
func clippedMessage(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	return Clipped(msg, MaxMessage) + " (message of " + strconv.Itoa(len(msg)) + " bytes cut)"
}
