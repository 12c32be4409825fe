# ForgePortConfig.cmake: find_package(ForgePort) for CUDA projects.
#
#   find_package(ForgePort REQUIRED)
#   add_library(mykernels kernels/reduce.cu kernels/stencil.cu)
#   forge_port_kernels(mykernels ARCHS 80 90 100
#                      TUNING_DB ${CMAKE_SOURCE_DIR}/forge-tuning.json RETUNE AUTO)
#
# Each CUDA source of the target is ported by forge-port at build time into
# the build tree (diagnostics printed, safe fixes applied), the tuned values
# of its kernels are taken from the database (a compute-capability dispatch
# where the architectures differ), and the ported copy is what the target
# compiles. The user's files are never written. docs/cmake.md has every
# option.
include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.20)

get_filename_component(_forge_port_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/ForgePortTargets.cmake")
  # Installed (cmake --install) or the build tree (export()).
  include("${CMAKE_CURRENT_LIST_DIR}/ForgePortTargets.cmake")
else()
  # A relocatable bundle (utils/make-bundle.sh): bin/ beside lib/cmake/.
  foreach(_exe forge-port forge-worker)
    if(NOT TARGET ForgePort::${_exe} AND EXISTS "${_forge_port_prefix}/bin/${_exe}")
      add_executable(ForgePort::${_exe} IMPORTED)
      set_target_properties(ForgePort::${_exe} PROPERTIES
        IMPORTED_LOCATION "${_forge_port_prefix}/bin/${_exe}")
    endif()
  endforeach()
endif()

set(FORGE_PORT_EXECUTABLE "" CACHE FILEPATH
    "forge-port to run at build time (empty: the package's ForgePort::forge-port)")
set(FORGE_WORKER_EXECUTABLE "" CACHE FILEPATH
    "forge-worker for tuning (empty: the package's, else the one beside forge-port)")
if(FORGE_PORT_EXECUTABLE)
  if(NOT EXISTS "${FORGE_PORT_EXECUTABLE}")
    message(FATAL_ERROR "FORGE_PORT_EXECUTABLE='${FORGE_PORT_EXECUTABLE}' does not exist")
  endif()
  set(_forge_port_exe "${FORGE_PORT_EXECUTABLE}")
elseif(TARGET ForgePort::forge-port)
  get_target_property(_forge_port_exe ForgePort::forge-port IMPORTED_LOCATION)
  if(NOT _forge_port_exe)
    get_target_property(_forge_port_cfgs ForgePort::forge-port IMPORTED_CONFIGURATIONS)
    list(GET _forge_port_cfgs 0 _forge_port_cfg)
    get_target_property(_forge_port_exe ForgePort::forge-port IMPORTED_LOCATION_${_forge_port_cfg})
  endif()
else()
  set(ForgePort_FOUND FALSE)
  set(ForgePort_NOT_FOUND_MESSAGE
      "ForgePort at ${_forge_port_prefix} has no forge-port executable (set FORGE_PORT_EXECUTABLE)")
  return()
endif()
set(FORGE_PORT_COMMAND "${_forge_port_exe}" CACHE INTERNAL "forge-port the build runs")

set(_forge_port_worker "${FORGE_WORKER_EXECUTABLE}")
if(NOT _forge_port_worker AND TARGET ForgePort::forge-worker AND NOT FORGE_PORT_EXECUTABLE)
  get_target_property(_forge_port_worker ForgePort::forge-worker IMPORTED_LOCATION)
  if(NOT _forge_port_worker)
    get_target_property(_forge_port_cfgs ForgePort::forge-worker IMPORTED_CONFIGURATIONS)
    list(GET _forge_port_cfgs 0 _forge_port_cfg)
    get_target_property(_forge_port_worker ForgePort::forge-worker
                        IMPORTED_LOCATION_${_forge_port_cfg})
  endif()
endif()
set(FORGE_PORT_WORKER "${_forge_port_worker}" CACHE INTERNAL "forge-worker the build runs")

# The architectures: "80", "90a", "100" as CUDA_ARCHITECTURES spells them.
function(_forge_port_arch_names out_var)
  set(names)
  foreach(a IN LISTS ARGN)
    if(NOT a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
      message(FATAL_ERROR "forge_port_kernels: ARCHS '${a}' is not an architecture "
                          "(write 80, 90, 90a, 100, as CUDA_ARCHITECTURES does)")
    endif()
    list(APPEND names "sm_${CMAKE_MATCH_1}")
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# The launch specs of a source: <stem>.json and <stem>.*.json beside it or
# in SPECS.
function(_forge_port_specs_of out_var src specs_dir)
  get_filename_component(dir "${src}" DIRECTORY)
  get_filename_component(stem "${src}" NAME_WLE)
  set(found)
  foreach(d "${dir}" ${specs_dir})
    foreach(pattern "${d}/${stem}.json" "${d}/${stem}.*.json")
      file(GLOB matches "${pattern}")
      list(APPEND found ${matches})
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES found)
  list(SORT found)
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# forge_port_kernels(<target> ARCHS <arch>... [TUNING_DB <file>]
#                    [RETUNE AUTO|OFF|ALWAYS] [SPECS <dir>] [CHECKS <globs>]
#                    [EXECUTOR local|slurm] [RUN "<cmd>"]
#                    [SLURM_PARTITIONS <target>=<partition>,...]
#                    [SLURM_WORKDIR <shared dir>] [SLURM_ACCOUNT <account>]
#                    [SLURM_TIME <HH:MM:SS>]
#                    [WARNINGS_AS_ERRORS] [VALIDATE])
function(forge_port_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 FP "WARNINGS_AS_ERRORS;VALIDATE"
                        "TUNING_DB;RETUNE;SPECS;CHECKS;EXECUTOR;RUN;SLURM_PARTITIONS;SLURM_WORKDIR;SLURM_ACCOUNT;SLURM_TIME"
                        "ARCHS")
  if(FP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "forge_port_kernels: unknown arguments: ${FP_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "forge_port_kernels: '${target}' is not a target")
  endif()
  get_target_property(aliased ${target} ALIASED_TARGET)
  get_target_property(imported ${target} IMPORTED)
  if(aliased OR imported)
    message(FATAL_ERROR "forge_port_kernels: '${target}' must be a target built here, not an "
                        "alias or an imported target")
  endif()
  if(NOT FP_ARCHS)
    message(FATAL_ERROR "forge_port_kernels: ARCHS is required (ARCHS 80 90 100)")
  endif()
  _forge_port_arch_names(arch_names ${FP_ARCHS})
  if(NOT FP_RETUNE)
    set(FP_RETUNE AUTO)
  endif()
  string(TOUPPER "${FP_RETUNE}" FP_RETUNE)
  if(NOT FP_RETUNE MATCHES "^(AUTO|OFF|ALWAYS)$")
    message(FATAL_ERROR "forge_port_kernels: RETUNE '${FP_RETUNE}' must be AUTO, OFF or ALWAYS")
  endif()
  string(TOLOWER "${FP_RETUNE}" retune)
  # The cluster executor (docs/cluster.md): every target of ARCHS measured on
  # its partition; the options are forge-port tune's.
  set(slurm_flags)
  if(FP_EXECUTOR AND NOT FP_EXECUTOR MATCHES "^(local|slurm)$")
    message(FATAL_ERROR "forge_port_kernels: EXECUTOR '${FP_EXECUTOR}' must be local or slurm")
  endif()
  if(FP_EXECUTOR STREQUAL "slurm")
    if(NOT FP_SLURM_PARTITIONS OR NOT FP_SLURM_WORKDIR)
      message(FATAL_ERROR "forge_port_kernels: EXECUTOR slurm needs SLURM_PARTITIONS "
                          "(sm_80=a100,sm_90=h100: a partition for each of ARCHS) and "
                          "SLURM_WORKDIR (a directory the GPU nodes share)")
    endif()
    if(FP_RUN)
      message(FATAL_ERROR "forge_port_kernels: EXECUTOR slurm measures with the specs' "
                          "harnesses; RUN (program mode) runs the program on this machine")
    endif()
    get_filename_component(workdir "${FP_SLURM_WORKDIR}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    set(slurm_flags --executor slurm "--partition=${FP_SLURM_PARTITIONS}"
                    "--workdir=${workdir}")
    if(FP_SLURM_ACCOUNT)
      list(APPEND slurm_flags "--account=${FP_SLURM_ACCOUNT}")
    endif()
    if(FP_SLURM_TIME)
      list(APPEND slurm_flags "--time=${FP_SLURM_TIME}")
    endif()
  elseif(FP_SLURM_PARTITIONS OR FP_SLURM_WORKDIR OR FP_SLURM_ACCOUNT OR FP_SLURM_TIME)
    message(FATAL_ERROR "forge_port_kernels: SLURM_* options need EXECUTOR slurm")
  endif()
  if(FP_SPECS)
    get_filename_component(FP_SPECS "${FP_SPECS}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${FP_SPECS}")
      message(FATAL_ERROR "forge_port_kernels: SPECS '${FP_SPECS}' is not a directory")
    endif()
  endif()
  set(db "")
  if(FP_TUNING_DB)
    get_filename_component(db "${FP_TUNING_DB}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${db}")
      # The build reads it and the tuning writes it: an empty database, so
      # that the build can depend on it.
      file(WRITE "${db}" "{\"forge_tuning_database\": 1, \"records\": []}\n")
    endif()
  endif()

  # From the lowest architecture (the resource comparison) to the highest
  # (the porting passes); nvcc then builds every one of ARCHS.
  set(numbers)
  foreach(n IN LISTS arch_names)
    string(REGEX REPLACE "^sm_([0-9]+).*$" "\\1" v "${n}")
    list(APPEND numbers "${v}")
  endforeach()
  list(SORT numbers COMPARE NATURAL)
  list(GET numbers 0 lowest)
  list(GET numbers -1 highest)
  foreach(n IN LISTS arch_names)
    if(n MATCHES "^sm_${highest}[af]?$")
      set(to "${n}")
    endif()
    if(n MATCHES "^sm_${lowest}[af]?$" AND NOT from)
      set(from "${n}")
    endif()
  endforeach()
  list(JOIN arch_names "," tune_targets)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${FP_ARCHS})

  # The target's own include directories and definitions, for Clang.
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(clang_args "$<$<BOOL:${incs}>:-I$<JOIN:${incs},$<SEMICOLON>-I>>"
                 "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>")

  set(port_flags --to "${to}" --from "${from}")
  if(FP_CHECKS)
    list(APPEND port_flags "--checks=${FP_CHECKS}")
  endif()
  if(FP_WARNINGS_AS_ERRORS)
    list(APPEND port_flags --warnings-as-errors)
  endif()
  if(NOT FP_VALIDATE)
    # nvcc compiles the result for every one of ARCHS right after.
    list(APPEND port_flags --no-validate)
  endif()
  set(common_tune_flags --to "${tune_targets}")
  if(db)
    list(APPEND common_tune_flags --db "${db}")
  endif()
  if(FORGE_PORT_WORKER)
    list(APPEND common_tune_flags --worker "${FORGE_PORT_WORKER}")
  endif()
  if(FP_RUN)
    # Program mode: each configuration is built into the user's program and
    # timed there; the specs give the tunables.
    list(APPEND common_tune_flags "--run=${FP_RUN}")
  endif()
  set(tune_flags ${common_tune_flags} --retune=${retune})
  if(NOT retune STREQUAL "off")
    # RETUNE OFF measures nothing, so it asks no cluster either.
    list(APPEND tune_flags ${slurm_flags})
  endif()
  set(retune_flags ${common_tune_flags} --retune=always ${slurm_flags})
  # Ninja keeps a step's consumers when its output is unchanged (restat);
  # Makefiles compare times, so there the output is always rewritten.
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(copy copy_if_different)
  else()
    set(copy copy)
  endif()

  get_target_property(sources ${target} SOURCES)
  set(new_sources)
  set(src_dirs)
  set(retune_commands)
  foreach(s IN LISTS sources)
    get_filename_component(ext "${s}" LAST_EXT)
    if(NOT ext STREQUAL ".cu" OR s MATCHES "^\\$<")
      list(APPEND new_sources "${s}")
      continue()
    endif()
    get_filename_component(src "${s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(src_dir "${src}" DIRECTORY)
    list(APPEND src_dirs "${src_dir}")
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${src}")
    if(rel MATCHES "^\\.\\./")
      string(SHA1 h "${src}")
      string(SUBSTRING "${h}" 0 8 h)
      get_filename_component(name "${src}" NAME)
      set(rel "external-${h}/${name}")
    endif()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/forge-port/${target}/${rel}")
    get_filename_component(out_dir "${out}" DIRECTORY)
    file(MAKE_DIRECTORY "${out_dir}")
    _forge_port_specs_of(specs "${src}" "${FP_SPECS}")

    set(commands
      COMMAND "${FORGE_PORT_COMMAND}" port "${src}" ${port_flags} -o "${out}.port.cu"
              --depfile "${out}.d" --depfile-target "${out}" -- ${clang_args} "-I${src_dir}")
    set(last "${out}.port.cu")
    set(i 0)
    foreach(spec IN LISTS specs)
      math(EXPR i "${i} + 1")
      set(next "${out}.tune${i}.cu")
      list(APPEND commands
        COMMAND "${FORGE_PORT_COMMAND}" tune "${last}" --spec "${spec}" ${tune_flags}
                --identity-of "${src}" --identity-depfile "${out}.d" -o "${next}"
                -- ${clang_args} "-I${src_dir}")
      list(APPEND retune_commands
        COMMAND "${FORGE_PORT_COMMAND}" tune "${last}" --spec "${spec}" ${retune_flags}
                --identity-of "${src}" --identity-depfile "${out}.d"
                -- ${clang_args} "-I${src_dir}")
      set(last "${next}")
    endforeach()
    list(APPEND commands COMMAND "${CMAKE_COMMAND}" -E ${copy} "${last}" "${out}")

    set(depends "${src}" ${specs} "${FORGE_PORT_COMMAND}")
    if(db)
      list(APPEND depends "${db}")
    endif()
    list(LENGTH specs nspecs)
    set(what "porting")
    if(nspecs)
      set(what "porting and tuning")
    endif()
    add_custom_command(
      OUTPUT "${out}"
      BYPRODUCTS "${out}.port.cu"
      ${commands}
      DEPENDS ${depends}
      DEPFILE "${out}.d"
      COMMENT "forge-port: ${what} ${rel} for ${tune_targets}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND new_sources "${out}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${new_sources})
  # The ported copies include the headers beside their originals.
  list(REMOVE_DUPLICATES src_dirs)
  target_include_directories(${target} PRIVATE ${src_dirs})

  if(retune_commands)
    set_property(GLOBAL APPEND PROPERTY FORGE_PORT_RETUNE_COMMANDS ${retune_commands})
    set_property(GLOBAL APPEND PROPERTY FORGE_PORT_RETUNE_TARGETS ${target})
    get_property(deferred GLOBAL PROPERTY FORGE_PORT_RETUNE_DEFERRED)
    if(NOT deferred)
      set_property(GLOBAL PROPERTY FORGE_PORT_RETUNE_DEFERRED TRUE)
      cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _forge_port_retune_target)
    endif()
  endif()
endfunction()

# `forge-retune`: measures every kernel with a spec again on this machine's
# GPU and updates the database; the next build takes the new values.
function(_forge_port_retune_target)
  get_property(commands GLOBAL PROPERTY FORGE_PORT_RETUNE_COMMANDS)
  get_property(targets GLOBAL PROPERTY FORGE_PORT_RETUNE_TARGETS)
  add_custom_target(forge-retune ${commands}
    COMMENT "forge-port: retuning the kernels with launch specs"
    COMMAND_EXPAND_LISTS VERBATIM)
  # The ported sources it tunes are made by the targets' builds.
  add_dependencies(forge-retune ${targets})
endfunction()
