// Rejected before the runtime is asked anything, so it runs without a GPU.
#include "axpy.h"
#include <cstring>
int main() {
  return hipdemo::axpy(nullptr, nullptr, 1.0f) == hipErrorInvalidValue &&
                 std::strcmp(hipdemo::statusString(),
                             "axpy: argument `X` is null") == 0
             ? 0
             : 1;
}
