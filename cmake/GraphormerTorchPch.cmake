# The precompiled <torch/torch.h> (graphormer_tensor's) for exactly the sources that include
# LibTorch, directly or through a core header. A source that never reaches LibTorch compiles 3-4x
# faster without it (screen/plan.cpp: 1.5 s vs 5.5 s), so every other source of the target skips it.
#   gs_torch_pch(<target> [<source that includes LibTorch>...])
# With no sources listed the whole target uses the header (tests and benchmarks built around
# tensors). The unit test build.torch_pch (scripts/check-torch-pch.py) fails when a list is wrong.
function(gs_torch_pch target)
  target_precompile_headers(${target} REUSE_FROM graphormer_tensor)
  if(NOT ARGN)
    return()
  endif()
  get_target_property(_sources ${target} SOURCES)
  foreach(_source IN LISTS _sources)
    if(NOT _source IN_LIST ARGN AND _source MATCHES "\\.cpp$")
      set_property(SOURCE ${_source} TARGET_DIRECTORY ${target} PROPERTY SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()
