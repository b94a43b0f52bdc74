# tilec_add_kernel(): compile a .tile file into a C++ launch header at build
# time, as an INTERFACE library that consumers link to get the header's
# include directory and the GPU runtime it needs.
#
#   tilec_add_kernel(<target> SOURCE <file.tile>
#                    [TARGETS sm_80 sm_90a | gfx90a gfx942 ...]
#                    [DEFINES name=value ...] [INSTANCES <file.json>]
#                    [NAMESPACE <a::b>] [FAST_MATH] [OPTIONS <tilec args>...])
#
# Writes ${CMAKE_CURRENT_BINARY_DIR}/tilec/<target>/<stem>.h and <stem>.json.
# Several TARGETS make one header holding one image per chip, chosen at
# load time. The header is rebuilt when the .tile file, the instances file or
# tilec itself changes (tilec -MD writes the depfile; Ninja and the Makefile
# generators both read it). The target's properties TILEC_HEADER and
# TILEC_JSON give the two paths.
#
# Needs CMake 3.20 (DEPFILE with Makefiles) and, for NVIDIA targets,
# find_package(CUDAToolkit) (done here); for AMD targets hip::host if the
# project found HIP, else hip/hip_runtime_api.h and libamdhip64 (ROCM_PATH,
# /opt/rocm, the system folders).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "tilec_add_kernel needs CMake 3.20 or later (DEPFILE "
                      "with Makefiles), this is ${CMAKE_VERSION}")
endif()

function(tilec_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "FAST_MATH"
    "SOURCE;INSTANCES;NAMESPACE" "TARGETS;DEFINES;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_add_kernel(${target}): unknown arguments: "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "tilec_add_kernel(${target}): SOURCE <file.tile> is required")
  endif()
  if(NOT TILEC_EXECUTABLE)
    message(FATAL_ERROR "tilec_add_kernel(${target}): TILEC_EXECUTABLE is not "
                        "set; call find_package(tilec) first")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS sm_90a)
  endif()

  set(nvidia FALSE)
  set(amd FALSE)
  foreach(chip IN LISTS ARG_TARGETS)
    if(chip MATCHES "^sm_")
      set(nvidia TRUE)
    elseif(chip MATCHES "^gfx")
      set(amd TRUE)
    else()
      message(FATAL_ERROR "tilec_add_kernel(${target}): unknown target `${chip}`")
    endif()
  endforeach()
  if(nvidia AND amd)
    message(FATAL_ERROR "tilec_add_kernel(${target}): TARGETS mixes NVIDIA and "
                        "AMD chips; one header is for one runtime (use two calls)")
  endif()

  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(stem "${source}" NAME_WE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tilec/${target}")
  set(header "${dir}/${stem}.h")
  set(json "${dir}/${stem}.json")
  set(depfile "${dir}/${stem}.h.d")
  file(MAKE_DIRECTORY "${dir}")

  list(JOIN ARG_TARGETS "," targets)
  set(args "${source}" --target "${targets}" --emit header -o "${header}"
           --json "${json}" -MD -MF "${depfile}" -MT "${header}")
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND args -D "${define}")
  endforeach()
  set(depends "${TILEC_EXECUTABLE}")
  if(ARG_INSTANCES)
    get_filename_component(instances "${ARG_INSTANCES}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args --instances "${instances}")
    list(APPEND depends "${instances}")
  endif()
  if(ARG_NAMESPACE)
    list(APPEND args --namespace "${ARG_NAMESPACE}")
  endif()
  if(ARG_FAST_MATH)
    list(APPEND args --fast-math)
  endif()
  list(APPEND args ${ARG_OPTIONS})

  add_custom_command(
    OUTPUT "${header}" "${json}"
    COMMAND "${TILEC_EXECUTABLE}" ${args}
    MAIN_DEPENDENCY "${source}"
    DEPENDS ${depends}
    DEPFILE "${depfile}"
    COMMENT "tilec ${stem}.tile -> ${stem}.h (${targets})"
    VERBATIM)
  add_custom_target(${target}_tilec DEPENDS "${header}" "${json}")

  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_tilec)
  target_include_directories(${target} INTERFACE "${dir}")
  target_compile_features(${target} INTERFACE cxx_std_17)
  set_target_properties(${target} PROPERTIES
    TILEC_HEADER "${header}" TILEC_JSON "${json}")

  if(nvidia)
    if(NOT TARGET CUDA::cuda_driver)
      find_package(CUDAToolkit REQUIRED)
    endif()
    target_link_libraries(${target} INTERFACE CUDA::cuda_driver)
  else()
    # hip::host when the project found HIP itself (find_package(hip) fails
    # hard on installs without hipcc, as Debian's), else the headers and
    # libamdhip64 directly.
    if(TARGET hip::host)
      target_link_libraries(${target} INTERFACE hip::host)
    else()
      find_path(TILEC_HIP_INCLUDE_DIR hip/hip_runtime_api.h
                HINTS ENV ROCM_PATH /opt/rocm PATH_SUFFIXES include)
      find_library(TILEC_HIP_LIBRARY amdhip64
                   HINTS ENV ROCM_PATH /opt/rocm PATH_SUFFIXES lib lib64)
      if(NOT TILEC_HIP_INCLUDE_DIR OR NOT TILEC_HIP_LIBRARY)
        message(FATAL_ERROR "tilec_add_kernel(${target}): the HIP headers and "
                            "libamdhip64 were not found (set ROCM_PATH)")
      endif()
      target_include_directories(${target} SYSTEM INTERFACE "${TILEC_HIP_INCLUDE_DIR}")
      target_compile_definitions(${target} INTERFACE __HIP_PLATFORM_AMD__)
      target_link_libraries(${target} INTERFACE "${TILEC_HIP_LIBRARY}")
    endif()
  endif()
endfunction()
