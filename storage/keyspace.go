package storage

import "encoding/binary"

// The key layout. Every key starts with a space byte; integers are big-endian so that keys of
// one space sort by their numbers. doc.go has the table.
const (
	spaceMeta    = 0x01 // store-wide: format, id counters
	spaceCatalog = 0x02 // databases, tables, views, triggers, procedures
	spaceCounter = 0x03 // per-table counters
	spaceData    = 0x10 // rows and index entries
)

// Meta keys.
var (
	keyFormat    = []byte{spaceMeta, 'f'}
	keyNextTable = []byte{spaceMeta, 'n'}
	keyNextDB    = []byte{spaceMeta, 'd'}
)

// Catalog kinds under a database id.
const (
	catDatabase   = 'D' // the database descriptor
	catTableName  = 'N' // lower(table name) → table id
	catTable      = 'T' // table id → table descriptor
	catView       = 'V' // lower(view name) → view
	catTrigger    = 'R' // creation sequence → trigger
	catTriggerSeq = 'Q' // the next trigger sequence number
	catProcedure  = 'P' // lower(procedure name) → procedure
)

// catDBName is the catalog entry mapping lower(database name) to its id; it sits under
// database id 0, which no database has.
const catDBName = 'd'

func dbNameKey(lowerName string) []byte {
	k := make([]byte, 0, 6+len(lowerName))
	k = append(k, spaceCatalog, 0, 0, 0, 0, catDBName)
	return append(k, lowerName...)
}

func dbNamePrefix() []byte { return []byte{spaceCatalog, 0, 0, 0, 0, catDBName} }

// dbPrefix is the start of every catalog key of database id.
func dbPrefix(db uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceCatalog}, db)
}

func dbKey(db uint32, kind byte, rest []byte) []byte {
	k := dbPrefix(db)
	k = append(k, kind)
	return append(k, rest...)
}

func dbDescKey(db uint32) []byte { return dbKey(db, catDatabase, nil) }

func tableNameKey(db uint32, lowerName string) []byte {
	return dbKey(db, catTableName, []byte(lowerName))
}

func tableDescKey(db uint32, tid uint32) []byte {
	return dbKey(db, catTable, binary.BigEndian.AppendUint32(nil, tid))
}

// Counter kinds under a table id.
const (
	ctrAutoInc  = 'a' // AUTO_INCREMENT high-water: the next value
	ctrRowCount = 'c' // committed row count
)

func counterKey(tid uint32, kind byte) []byte {
	k := binary.BigEndian.AppendUint32([]byte{spaceCounter}, tid)
	return append(k, kind)
}

// Index ids inside a table's data.
const (
	iidRows     = 0x0000 // the rows, keyed by primary key (or hidden row id)
	iidRowHash  = 0xFFFF // keyless tables: hash of the stored row → row id
	iidFirstSec = 0x0001
)

// tablePrefix is the start of every data key of table tid.
func tablePrefix(tid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceData}, tid)
}

// tableEnd is the first key after every data key of tid.
func tableEnd(tid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceData}, tid+1)
}

// indexPrefix is the start of index iid of table tid (iidRows for the rows).
func indexPrefix(tid uint32, iid uint16) []byte {
	k := make([]byte, 0, 32)
	k = append(k, spaceData)
	k = binary.BigEndian.AppendUint32(k, tid)
	return binary.BigEndian.AppendUint16(k, iid)
}

// prefixEnd is the first key after every key that starts with p (nil: no such key).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}
