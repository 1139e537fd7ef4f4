package api_test

import (
	"fmt"
	"strconv"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
