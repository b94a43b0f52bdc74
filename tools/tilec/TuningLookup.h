//===- TuningLookup.h - tilec --tuning-cache --------------------*- C++ -*-===//
#ifndef TILEC_TOOLS_TUNINGLOOKUP_H
#define TILEC_TOOLS_TUNINGLOOKUP_H

#include "tilec/MLIRGen/MLIRGen.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec {
class DiagnosticEngine;
namespace ast {
class Module;
}

/// For each @tilelang.autotune space of `module` (under `options`' -D and
/// --instances), looks up the tuning cache at `cachePath` (key: the SHA-256
/// of `source`, the factory, the untuned bindings, `chip`) and binds the
/// fastest recorded configuration: as -D values without --instances, else
/// in the instance's parameters; values the user gave win. Says on stderr
/// which configuration it picked, and warns (naming the nearest entry's
/// difference) when the cache has none. False after an error (unreadable or
/// malformed cache, a source the elaborator rejects).
bool applyTuningCache(const std::string &cachePath, llvm::StringRef source,
                      const ast::Module &module, DiagnosticEngine &diag,
                      MLIRGenOptions &options, const std::string &chip);

/// Lower-case hex SHA-256 of `bytes` (the key tilec-tune records).
std::string sourceSha256(llvm::StringRef bytes);

} // namespace tilec

#endif // TILEC_TOOLS_TUNINGLOOKUP_H
