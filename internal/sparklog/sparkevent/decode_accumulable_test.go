package sparkevent

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// The fast reading of accumulables must give what the general decoder and
// the encoding/json reference give, for Spark's exact layout and for every
// way of leaving it (each case falls back at a different byte).
func TestAccumulableFastMatchesReference(t *testing.T) {
	const spark = `{"ID":8,"Name":"number of output rows","Update":"100","Value":"1000","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`
	cases := []string{
		spark,
		`{"ID":9,"Name":"internal.metrics.executorRunTime","Update":4382,"Value":4382,"Internal":true,"Count Failed Values":true}`,
		`{"ID":10,"Name":"n","Value":7,"Internal":false,"Count Failed Values":false}`,   // no Update
		`{"ID":11,"Name":"n","Update":-7,"Internal":false,"Count Failed Values":false}`, // no Value
		`{"ID":12,"Internal":false,"Count Failed Values":true}`,                         // neither, no name
		`{"ID":13,"Name":"d","Update":"00:00:00.000","Value":"00:00:01.000","Internal":false,"Count Failed Values":true,"Metadata":"timing"}`,
		`{"ID":14,"Name":"f","Update":1.5,"Value":2,"Internal":false,"Count Failed Values":true}`,
		`{"ID":15,"Name":"e","Update":1e3,"Value":2,"Internal":false,"Count Failed Values":true}`,
		`{"ID":16,"Name":"blocks","Update":[{"Block ID":"rdd_1_0"}],"Value":[],"Internal":true,"Count Failed Values":true}`,
		`{"ID":17,"Name":"a\"quote","Update":1,"Value":1,"Internal":true,"Count Failed Values":true}`,
		`{"ID":18,"Name":"x","Update":"1\u0032","Value":"3","Internal":true,"Count Failed Values":true}`,
		`{"ID":19,"Name":"x","Update":null,"Value":3,"Internal":true,"Count Failed Values":true}`,
		`{"ID":20, "Name":"x","Update":1,"Value":3,"Internal":true,"Count Failed Values":true}`,
		`{"Name":"x","ID":21,"Update":1,"Value":3,"Internal":true,"Count Failed Values":true}`,
		`{"ID":22,"Name":"x","Update":1,"Value":3,"Count Failed Values":true,"Internal":true}`,
		`{"ID":23,"Name":"x","Update":9223372036854775807,"Value":-9223372036854775808,"Internal":true,"Count Failed Values":true}`,
		`{"ID":24,"Name":"x","Update":99999999999999999999,"Value":3,"Internal":true,"Count Failed Values":true}`,
		`{"ID":25,"Name":"x","Update":"-12","Value":"+3","Internal":true,"Count Failed Values":true}`,
		`{"ID":26,"Name":"x","Update":1,"Value":3,"Internal":true,"Count Failed Values":true,"Metadata":"sq\u006c"}`,
		`{"ID":27,"Name":"x","Update":1,"Value":3,"Internal":null,"Count Failed Values":true}`,
		`{"ID":28,"Name":"x","Update":1,"Value":3,"Internal":true,"Count Failed Values":true,"Extra":{"a":[1]}}`,
		`{"ID":8,"Name":"renamed","Update":1,"Value":3,"Internal":true,"Count Failed Values":true}`, // same ID, other name
		`{"ID":8,"Name":"number of output rows!","Update":1,"Value":3,"Internal":true,"Count Failed Values":true}`,
		`{"ID":-0,"Name":"","Update":0,"Value":0,"Internal":false,"Count Failed Values":false,"Metadata":""}`,
		`{"ID":29,"Name":"x","Update":1,"Value":3,"Internal":true,"Count Failed Values":true} `,
	}
	d := NewDecoder()
	for _, acc := range cases {
		// The same list twice: the second time names come from the cache.
		line := []byte(`{"Event":"SparkListenerTaskEnd","Task Info":{"Task ID":1,"Accumulables":[` + spark + `,` + acc + `,` + acc + `]}}`)
		got, err := d.Decode(line)
		want, werr := refDecode(line)
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: error %v, reference error %v", acc, err, werr)
			continue
		}
		if err != nil {
			continue
		}
		if diff := eventtest.FirstDiff(got.EventType(), reflect.ValueOf(got), reflect.ValueOf(want)); diff != "" {
			t.Errorf("%s: %s", acc, diff)
		}
	}
	// Leading zeros are not JSON: both paths must refuse them.
	if _, err := d.Decode([]byte(`{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[{"ID":01,"Name":"x"}]}}`)); err == nil {
		t.Error("ID 01 accepted")
	}
}

// The key words are written out as constants; each must be its text.
func TestAccumulableKeyWords(t *testing.T) {
	le := func(s string) uint64 { return binary.LittleEndian.Uint64([]byte(s)) }
	for _, k := range []struct {
		text             string
		n                int
		head, tail, want uint64
	}{
		{`,"Name":"`, keyNameLen, keyNameHead, keyNameTail, 0},
		{`,"Update":`, keyUpdateLen, keyUpdateHead, keyUpdateTail, 0},
		{`,"Value":`, keyValueLen, keyValueHead, keyValueTail, 0},
		{`,"Internal":`, keyInternalLen, keyInternalHead, keyInternalTail, 0},
		{`,"Count Failed Values":`, keyCountLen, keyCountHead, keyCountTail, keyCountMid},
		{`,"Metadata":"`, keyMetadataLen, keyMetadataHead, keyMetadataTail, 0},
	} {
		if k.n != len(k.text) || k.head != le(k.text[:8]) || k.tail != le(k.text[len(k.text)-8:]) {
			t.Errorf("%s: words %d/%#x/%#x, want %d/%#x/%#x", k.text, k.n, k.head, k.tail, len(k.text), le(k.text[:8]), le(k.text[len(k.text)-8:]))
		}
		if k.want != 0 && k.want != le(k.text[8:16]) {
			t.Errorf("%s: middle word %#x, want %#x", k.text, k.want, le(k.text[8:16]))
		}
	}
	if wordID != binary.LittleEndian.Uint32([]byte(`{"ID`)) || wordTrue != binary.LittleEndian.Uint32([]byte("true")) ||
		wordAlse != binary.LittleEndian.Uint32([]byte("alse")) || wordSQL != binary.LittleEndian.Uint32([]byte(`sql"`)) {
		t.Error("a 32-bit word differs from its text")
	}
}

func TestAccumulableSQLUpdate(t *testing.T) {
	for _, tc := range []struct {
		a    Accumulable
		want SQLUpdate
		ok   bool
	}{
		{Accumulable{ID: 3, Name: "rows", Update: 5, Value: 9, HasUpdate: true, Numeric: true, Metadata: "sql"}, SQLUpdate{ID: 3, Update: 5, Value: 9, HasUpdate: true}, true},
		{Accumulable{ID: 4, Value: 7, Numeric: true, Metadata: "sql"}, SQLUpdate{ID: 4, Value: 7}, true}, // a stage's: no update
		{Accumulable{ID: 5, Numeric: false, Metadata: "sql"}, SQLUpdate{}, false},                        // not an integer
		{Accumulable{ID: 6, Update: 1, HasUpdate: true, Numeric: true}, SQLUpdate{}, false},              // internal.metrics
		{Accumulable{ID: 7, Update: 1, HasUpdate: true, Numeric: true, Metadata: "SQL"}, SQLUpdate{}, false},
	} {
		got, ok := tc.a.SQLUpdate()
		if got != tc.want || ok != tc.ok {
			t.Errorf("%+v: got %+v, %v; want %+v, %v", tc.a, got, ok, tc.want, tc.ok)
		}
	}
}
