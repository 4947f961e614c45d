package extproc

import (
	"errors"
	"strings"
)

// splitCommand splits command into words the way a POSIX shell would for a
// simple command without expansions: words are separated by blanks (space,
// tab, newline); single quotes keep everything up to the next single quote;
// double quotes keep everything up to the next unescaped double quote, in
// which a backslash escapes only ", \, $, ` and a newline; outside quotes a
// backslash keeps the next character. Quoted and unquoted parts next to
// each other make one word, and a pair of quotes with nothing between them
// is an empty word. Nothing else is special: no variables, globs,
// redirections or pipes.
func splitCommand(command string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool // a word has started, even if it is still empty ("")
	)
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(command) {
				return nil, errors.New("command ends with a lone backslash")
			}
			i++
			if command[i] != '\n' { // backslash-newline joins lines
				word.WriteByte(command[i])
				inWord = true
			}
		case c == '\'':
			end := strings.IndexByte(command[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("command has an unterminated single quote")
			}
			word.WriteString(command[i+1 : i+1+end])
			inWord = true
			i += 1 + end
		case c == '"':
			i++
			for ; i < len(command) && command[i] != '"'; i++ {
				if command[i] == '\\' && i+1 < len(command) && strings.IndexByte("\"\\$`\n", command[i+1]) >= 0 {
					i++
					if command[i] == '\n' {
						continue
					}
				}
				word.WriteByte(command[i])
			}
			if i == len(command) {
				return nil, errors.New("command has an unterminated double quote")
			}
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command is empty")
	}
	return words, nil
}
