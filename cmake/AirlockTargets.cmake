# Helpers that give every airlock target the same language level, warnings and sanitizers.

# Flags for our own code only; third-party headers come in as SYSTEM and stay quiet.
function(airlock_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Werror -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wformat=2
    -Wimplicit-fallthrough)
  # GCC 12's -O3 object-size analysis reports overflows and overlaps inside std::vector,
  # std::sort and std::string that cannot happen (GCC bugs 105329, 105651, 106199, 107138).
  # AddressSanitizer in the debug preset checks for the real thing at run time.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-stringop-overread
                                             -Wno-array-bounds -Wno-restrict)
  endif()
endfunction()

# A module library: airlock_<name>, aliased airlock::<name>, with include/ public and src/ private.
function(airlock_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(airlock_${name} STATIC ${ARG_SOURCES})
  add_library(airlock::${name} ALIAS airlock_${name})
  target_include_directories(airlock_${name}
    PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include"
    PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
  target_link_libraries(airlock_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  airlock_target_defaults(airlock_${name})
endfunction()

if(AIRLOCK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# In the fuzz build every library carries libFuzzer's coverage instrumentation.
if(AIRLOCK_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
