package stacks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// RulesFile is the JSON rule file read by LoadRules:
//
//	{
//	  "replace_defaults": false,
//	  "rules": [
//	    {"name": "kafka_poll", "state": "io", "depth": 8,
//	     "any_frame": ["org.apache.kafka.clients.consumer.KafkaConsumer.poll"]}
//	  ]
//	}
//
// Its rules come before the built-in ones (first match wins), or replace
// them when replace_defaults is true. States are named as in metrics
// ("running", "shuffle_fetch", "memory_wait", "spill", "io", "lock",
// "backpressure", "other_wait"); fields are those of Rule.
type RulesFile struct {
	ReplaceDefaults bool   `json:"replace_defaults"`
	Rules           []Rule `json:"rules"`
}

// LoadRules reads a rule file and returns the full ordered table. Unknown
// fields are errors, so a misspelt condition cannot silently match all.
func LoadRules(path string) ([]Rule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stack rules: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f RulesFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("stack rules %s: %w", path, jsonPosition(b, err))
	}
	rules := f.Rules
	if !f.ReplaceDefaults {
		rules = append(rules, DefaultRules()...)
	}
	if _, err := NewClassifier(rules); err != nil {
		return nil, fmt.Errorf("stack rules %s: %w", path, err)
	}
	return rules, nil
}

// jsonPosition adds the line number to JSON syntax and type errors.
func jsonPosition(b []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return err
	}
	return fmt.Errorf("line %d (byte %d): %w", bytes.Count(b[:off], []byte("\n"))+1, off, err)
}
