package nullable

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	require.Nil(t, String(""))
	s := "Germany"
	p := String(s)
	require.NotNil(t, p)
	require.Equal(t, "Germany", *p)
	*p = "changed"
	require.Equal(t, "Germany", s, "the pointer is to a copy")
}
