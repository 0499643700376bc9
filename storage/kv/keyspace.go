package kv

import "encoding/binary"

// The key layout. Every key starts with a space byte; integers are big-endian so that keys of
// one space sort by their numbers. doc.go has the table.

// Spaces: the first byte of every key.
const (
	SpaceMeta    = 0x01 // store-wide: format, id counters
	SpaceCatalog = 0x02 // databases, tables, views, triggers, procedures
	SpaceCounter = 0x03 // per-table counters
	SpaceData    = 0x10 // rows and index entries
)

// Meta keys.
var (
	KeyFormat    = []byte{SpaceMeta, 'f'}
	KeyNextTable = []byte{SpaceMeta, 'n'}
	KeyNextDB    = []byte{SpaceMeta, 'd'}
)

// Catalog kinds under a database id.
const (
	CatDatabase   = 'D' // the database descriptor
	CatTableName  = 'N' // lower(table name) → table id
	CatTable      = 'T' // table id → table descriptor
	CatView       = 'V' // lower(view name) → view
	CatTrigger    = 'R' // creation sequence → trigger
	CatTriggerSeq = 'Q' // the next trigger sequence number
	CatProcedure  = 'P' // lower(procedure name) → procedure
)

// CatDBName is the catalog entry mapping lower(database name) to its id; it sits under
// database id 0, which no database has.
const CatDBName = 'd'

// DBNameKey is the catalog key of a database's name (lower case) → its id.
func DBNameKey(lowerName string) []byte {
	k := make([]byte, 0, 6+len(lowerName))
	k = append(k, SpaceCatalog, 0, 0, 0, 0, CatDBName)
	return append(k, lowerName...)
}

// DBNamePrefix is the start of every database name key.
func DBNamePrefix() []byte { return []byte{SpaceCatalog, 0, 0, 0, 0, CatDBName} }

// DBPrefix is the start of every catalog key of database id.
func DBPrefix(db uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{SpaceCatalog}, db)
}

// DBKey is the catalog key of kind under database db, followed by rest.
func DBKey(db uint32, kind byte, rest []byte) []byte {
	k := DBPrefix(db)
	k = append(k, kind)
	return append(k, rest...)
}

// DBDescKey is the key of database db's descriptor.
func DBDescKey(db uint32) []byte { return DBKey(db, CatDatabase, nil) }

// TableNameKey is the key of a table's name (lower case) in database db → its table id.
func TableNameKey(db uint32, lowerName string) []byte {
	return DBKey(db, CatTableName, []byte(lowerName))
}

// TableDescKey is the key of table tid's descriptor in database db.
func TableDescKey(db uint32, tid uint32) []byte {
	return DBKey(db, CatTable, binary.BigEndian.AppendUint32(nil, tid))
}

// Counter kinds under a table id.
const (
	CtrAutoInc  = 'a' // AUTO_INCREMENT high-water: the next value
	CtrRowCount = 'c' // committed row count
)

// CounterKey is the key of table tid's counter of kind (CtrAutoInc, CtrRowCount).
func CounterKey(tid uint32, kind byte) []byte {
	k := binary.BigEndian.AppendUint32([]byte{SpaceCounter}, tid)
	return append(k, kind)
}

// Index ids inside a table's data.
const (
	IIDRows     = 0x0000 // the rows, keyed by primary key (or hidden row id)
	IIDRowHash  = 0xFFFF // keyless tables: hash of the stored row → row id
	IIDFirstSec = 0x0001
)

// TablePrefix is the start of every data key of table tid.
func TablePrefix(tid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{SpaceData}, tid)
}

// TableEnd is the first key after every data key of tid.
func TableEnd(tid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{SpaceData}, tid+1)
}

// IndexPrefix is the start of index iid of table tid (IIDRows for the rows).
func IndexPrefix(tid uint32, iid uint16) []byte {
	k := make([]byte, 0, 32)
	k = append(k, SpaceData)
	k = binary.BigEndian.AppendUint32(k, tid)
	return binary.BigEndian.AppendUint16(k, iid)
}

// PrefixEnd is the first key after every key that starts with p (nil: no such key).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}
