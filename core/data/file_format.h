#pragma once
// The molecule file formats, one table row each: name, extensions, MIME types, description, field
// layout and reader. Everything that names or recognises a format reads this table: the readers
// (formatFromPath, makeReader), the screen plan, the CLI help and `graphormer-cli formats`, the
// app's file dialogs, tooltips and import dialog, and the desktop MIME XML generated at build time
// (packaging/CMakeLists.txt). Adding a format: one row here, its reader, and its tests.
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::data {

class RecordReader;
struct ReaderOptions;

// Cxsmiles: vendor CXSMILES tables (Enamine REAL) with a header row, tab separated (space separated
// when the first line has no tab); the SMILES field keeps its extension ("CCO |&1:1|"), which RDKit parses.

enum class FileFormat { Smi, Csv, Tsv, Sdf, Cxsmiles };

// How a record's named fields are found.
enum class FieldLayout {
  None,       // no named fields (.smi: SMILES and name by position)
  HeaderRow,  // a header row names the columns (unless the user says there is none)
  DataItems,  // SD data items, which may differ from record to record (scanned to list them all)
};

struct MimeType {
  const char* type;                     // "chemical/x-daylight-smiles"
  const char* comment;                  // shown by file managers
  std::vector<const char*> extensions;  // the globs of this type, without "*."
  bool ours;  // defined in our shared-mime-info XML and claimed by the desktop entry (not text/csv)
};

struct FileFormatInfo {
  FileFormat format;
  const char* name;            // in plans, messages and `graphormer-cli formats`
  const char* description;     // one line for help texts and tooltips
  std::vector<MimeType> mime;  // its extensions are the format's; the first one is the usual one
  FieldLayout fields;
  bool import_dialog;  // the app asks which columns hold SMILES and names before reading
  std::unique_ptr<RecordReader> (*make)(std::istream& in, const ReaderOptions& options);
};

const std::vector<FileFormatInfo>& fileFormats();
// A row's extensions (lower case, no dot), in the order of its MIME types.
std::vector<std::string> extensionsOf(const FileFormatInfo& info);
const FileFormatInfo& formatInfo(FileFormat format);

// From the name, ignoring a compression suffix ("lib.smi.gz" is Smi); the error lists what is known.
Result<FileFormat> formatFromPath(const std::string& path);
// From a row's `name` ("sdf").
Result<FileFormat> formatFromName(const std::string& name);

// ".smi, .smiles, .txt, .csv, ..." (every extension of every format).
std::string extensionList();
// ".gz, .bz2, .zst" (the usual compression suffixes).
std::string compressionList();
// A file dialog filter: "LABEL (*.smi *.csv ... *.gz *.bz2 ...)" over the formats whose fields
// are not FieldLayout::None when `with_fields`, else over every format.
std::string dialogFilter(const std::string& label, bool with_fields);
// The freedesktop shared-mime-info XML of the MIME types marked `ours`.
std::string mimeXml();
// "type;type;..." for a desktop entry's MimeType key (the types marked `ours`).
std::string desktopMimeTypes();

}  // namespace gs::data
