//===- MLIRPCH.h - Precompiled MLIR headers ---------------------*- C++ -*-===//
//
// The MLIR headers nearly every MLIR-facing file of tilec includes. Compiling
// them once per target as a precompiled header is what keeps the clean build
// in minutes on a two-core machine.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_MLIRPCH_H
#define TILEC_SUPPORT_MLIRPCH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#endif // TILEC_SUPPORT_MLIRPCH_H
