package human

import "strconv"

// QuotedName is a file's or an object's name as an error message shows
// it: as it is, or Go-quoted when Safe would change it (a control
// character, bytes that are not UTF-8), so that the name can be copied
// back exactly.
func QuotedName(name string) string {
	if Safe(name) == name {
		return name
	}
	return strconv.Quote(name)
}
