//===- Checks.h - Shared argument checks (private to TilecLayout) -*- C++
//-*-===//
//
// Name and size validation used by every LinearLayout constructor and
// transform, so their messages read the same.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_LAYOUT_CHECKS_H
#define TILEC_LIB_LAYOUT_CHECKS_H

#include "tilec/Layout/LinearLayout.h"

#include "llvm/ADT/StringSet.h"

namespace tilec::detail {

/// Dimension values are int32_t, so one dimension holds at most 2^30.
inline constexpr int kMaxDimBits = 30;

/// Names must be non-empty and distinct.
inline llvm::Error checkUnique(llvm::ArrayRef<std::string> names,
                               llvm::StringRef what) {
  llvm::StringSet<> seen;
  for (const std::string &name : names) {
    if (name.empty())
      return makeLayoutError(llvm::Twine(what) +
                             " dimension with an empty name");
    if (!seen.insert(name).second)
      return makeLayoutError(llvm::Twine("duplicate ") + what + " dimension `" +
                             name + "`");
  }
  return llvm::Error::success();
}

/// Sizes must be powers of two and names as checkUnique wants.
inline llvm::Error checkSizes(llvm::ArrayRef<LinearLayout::NamedSize> dims,
                              llvm::StringRef what) {
  llvm::SmallVector<std::string> names;
  for (const auto &[name, size] : dims) {
    if (!isPowerOfTwo(size))
      return makeLayoutError(llvm::Twine(what) + " dimension `" + name +
                             "` has size " + llvm::Twine(size) +
                             ", not a power of two");
    names.push_back(name);
  }
  return checkUnique(names, what);
}

} // namespace tilec::detail

#endif // TILEC_LIB_LAYOUT_CHECKS_H
