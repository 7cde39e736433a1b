# FindRDKit: RDKit 2022.09 as packaged by Debian ships no CMake config, so locate the headers and
# libraries by name. Defines RDKit_FOUND, RDKit_INCLUDE_DIRS and one imported target per
# requested component, RDKit::<Name> (e.g. RDKit::GraphMol), plus RDKit::RDKit with all of them.
find_path(RDKit_INCLUDE_DIR GraphMol/ROMol.h PATH_SUFFIXES rdkit)
find_package(Boost REQUIRED)
set(_rdkit_components RDGeneral RDGeometryLib DataStructs GraphMol SmilesParse FileParsers
    SubstructMatch Depictor MolDraw2D Descriptors Fingerprints ChemTransforms MolTransforms
    DistGeometry DistGeomHelpers ForceField ForceFieldHelpers RDStreams MolStandardize)
set(RDKit_LIBRARIES "")
foreach(_c IN LISTS _rdkit_components)
  find_library(RDKit_${_c}_LIBRARY NAMES RDKit${_c})
  if(RDKit_${_c}_LIBRARY AND NOT TARGET RDKit::${_c})
    add_library(RDKit::${_c} UNKNOWN IMPORTED)
    set_target_properties(RDKit::${_c} PROPERTIES IMPORTED_LOCATION "${RDKit_${_c}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${RDKit_INCLUDE_DIR};${Boost_INCLUDE_DIRS}")
  endif()
  if(RDKit_${_c}_LIBRARY)
    list(APPEND RDKit_LIBRARIES RDKit::${_c})
  endif()
endforeach()
include(FindPackageHandleStandardArgs)
# Every component is required: a missing one would otherwise surface as undefined references at link time.
set(_rdkit_required RDKit_INCLUDE_DIR)
foreach(_c IN LISTS _rdkit_components)
  list(APPEND _rdkit_required RDKit_${_c}_LIBRARY)
endforeach()
find_package_handle_standard_args(RDKit REQUIRED_VARS ${_rdkit_required}
  REASON_FAILURE_MESSAGE "RDKit's headers or libraries were not found. On Debian 12 install librdkit-dev (scripts/setup-deps.sh does)")
if(RDKit_FOUND AND NOT TARGET RDKit::RDKit)
  set(RDKit_INCLUDE_DIRS "${RDKit_INCLUDE_DIR}")
  add_library(RDKit::RDKit INTERFACE IMPORTED)
  set_target_properties(RDKit::RDKit PROPERTIES INTERFACE_LINK_LIBRARIES "${RDKit_LIBRARIES}")
endif()
