//===- DType.cpp - TileLang element types ---------------------------------===//

#include "tilec/Sema/DType.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace tilec::sema {

std::optional<DType> DType::parse(StringRef name) {
  return StringSwitch<std::optional<DType>>(name)
      .Cases({"bool", "boolean"}, DType(Bool))
      .Case("int8", DType(Int8))
      .Case("int16", DType(Int16))
      .Cases({"int32", "int"}, DType(Int32))
      .Case("int64", DType(Int64))
      .Case("uint8", DType(UInt8))
      .Case("uint16", DType(UInt16))
      .Case("uint32", DType(UInt32))
      .Case("uint64", DType(UInt64))
      .Cases({"ptr", "handle"}, DType(Ptr))
      .Cases({"float8_e4m3", "float8_e4m3fn", "e4m3_float8"}, DType(Float8E4M3))
      .Cases({"float8_e5m2", "e5m2_float8"}, DType(Float8E5M2))
      .Cases({"float16", "half", "fp16"}, DType(Float16))
      .Cases({"bfloat16", "bf16"}, DType(BFloat16))
      // TileLang's tfloat32 is fp32 storage that tensor cores read as tf32;
      // tilec's T.gemm reads every float32 operand that way.
      .Cases({"float32", "float", "fp32", "tfloat32"}, DType(Float32))
      .Cases({"float64", "double", "fp64"}, DType(Float64))
      .Default(std::nullopt);
}

StringRef DType::name() const {
  switch (kind) {
  case Bool: return "bool";
  case Int8: return "int8";
  case Int16: return "int16";
  case Int32: return "int32";
  case Int64: return "int64";
  case UInt8: return "uint8";
  case UInt16: return "uint16";
  case UInt32: return "uint32";
  case UInt64: return "uint64";
  case Ptr: return "ptr";
  case Float8E4M3: return "float8_e4m3";
  case Float8E5M2: return "float8_e5m2";
  case Float16: return "float16";
  case BFloat16: return "bfloat16";
  case Float32: return "float32";
  case Float64: return "float64";
  }
  return "?";
}

StringRef DType::cType() const {
  switch (kind) {
  case Bool: return "bool";
  case Int8: return "int8_t";
  case Int16: return "int16_t";
  case Int32: return "int32_t";
  case Int64: return "int64_t";
  case UInt8: return "uint8_t";
  case UInt16: return "uint16_t";
  case UInt32: return "uint32_t";
  case UInt64: return "uint64_t";
  case Ptr: return "void *";
  // 8/16-bit floats travel as their bit patterns.
  case Float8E4M3:
  case Float8E5M2: return "uint8_t";
  case Float16:
  case BFloat16: return "uint16_t";
  case Float32: return "float";
  case Float64: return "double";
  }
  return "?";
}

unsigned DType::bits() const {
  switch (kind) {
  case Bool: return 8;
  case Int8:
  case UInt8:
  case Float8E4M3:
  case Float8E5M2: return 8;
  case Int16:
  case UInt16:
  case Float16:
  case BFloat16: return 16;
  case Int32:
  case UInt32:
  case Float32: return 32;
  case Int64:
  case UInt64:
  case Ptr:
  case Float64: return 64;
  }
  return 0;
}

} // namespace tilec::sema
