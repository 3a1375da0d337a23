// Package sparklog reads Spark event logs — single files, rolling
// directories, Databricks directories, zip archives and directories of many
// applications, on local disk or in an object store (S3, GCS, Azure Blob),
// in every codec Spark writes, finished or still growing — and hands each
// line, decoded by package sparkevent, to a Handler in file order, with the
// damage it finds as Problems naming file, line and offset.
//
// Its parts below it: sparkevent decodes one line into a typed event; codec
// decompresses; objstore opens, lists and reads object stores.
package sparklog
