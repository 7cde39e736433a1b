# Interface target carrying the project's warning flags; link it PRIVATE into our own targets only.
add_library(graphormer_warnings INTERFACE)
add_library(Graphormer::Warnings ALIAS graphormer_warnings)
target_compile_options(graphormer_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
  -Wcast-align -Woverloaded-virtual -Wno-unused-parameter>)
