//===- DType.h - TileLang element types -------------------------*- C++ -*-===//
//
// The element types a .tile program can name ("float16", T.bfloat16, ...),
// independent of MLIR so that compile-time evaluation and the launch header
// can share one spelling table.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SEMA_DTYPE_H
#define TILEC_SEMA_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tilec::sema {

class DType {
public:
  enum Kind : unsigned char {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    // A 64-bit device address: the element type of a `T.Tensor([n], T.ptr)`
    // kernel parameter (TileLang's `handle`). Neither an integer nor a
    // float: its only use is `T.make_tensor`.
    Ptr,
    Float8E4M3,
    Float8E5M2,
    Float16,
    BFloat16,
    Float32,
    Float64,
  };

  constexpr DType(Kind kind) : kind(kind) {}

  /// Parses TileLang's spellings: "float16", "half", "float"/"float32",
  /// "bfloat16", "float8_e4m3"(fn), "int32", "bool", ...
  static std::optional<DType> parse(llvm::StringRef name);

  Kind getKind() const { return kind; }
  /// The canonical TileLang name ("float16", "float32", ...).
  llvm::StringRef name() const;
  /// The C type the launch header uses for a scalar of this type.
  llvm::StringRef cType() const;
  unsigned bits() const;
  unsigned bytes() const { return (bits() + 7) / 8; }
  bool isFloat() const { return kind >= Float8E4M3; }
  bool isInteger() const { return kind <= UInt64; }
  bool isSigned() const { return kind >= Int8 && kind <= Int64; }
  bool isBool() const { return kind == Bool; }
  bool isPointer() const { return kind == Ptr; }

  friend bool operator==(DType a, DType b) { return a.kind == b.kind; }
  friend bool operator!=(DType a, DType b) { return a.kind != b.kind; }

private:
  Kind kind;
};

} // namespace tilec::sema

#endif // TILEC_SEMA_DTYPE_H
