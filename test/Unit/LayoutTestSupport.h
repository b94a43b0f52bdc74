//===- LayoutTestSupport.h - Helpers shared by the layout unit tests ------===//
//
// The layout library reports invalid requests as llvm::Expected; these turn
// an unexpected error into a Catch2 failure, or return the message of an
// expected one.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TEST_UNIT_LAYOUTTESTSUPPORT_H
#define TILEC_TEST_UNIT_LAYOUTTESTSUPPORT_H

#include "llvm/Support/Error.h"

#include <catch2/catch.hpp>

#include <string>

namespace layout_test {

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    FAIL(llvm::toString(value.takeError()));
  return std::move(*value);
}

template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

} // namespace layout_test

#endif // TILEC_TEST_UNIT_LAYOUTTESTSUPPORT_H
