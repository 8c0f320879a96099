# Writes the Doxyfile for the `docs` target. Run at build time (cmake -P), not at configure time, so
# the pages see the kernel files, runs and figures that exist when the docs are built:
#
#   cmake -DSOURCE_DIR=<repo> -DOUTPUT_DIR=<dir> -DSOLUTIONS=ON|OFF -DWERROR=ON|OFF
#         [-DDOT=<path to dot>] [-DVERSION=x.y] [-DUNDOCUMENTED=ON] [-DPYTHON=<python3>] [-DRUNS=ON|OFF]
#         -P configure_docs.cmake
#
# RUNS: the docs target ran the section programs on the emulator (docs/CMakeLists.txt); OFF keeps the
# READMEs' committed copies of what those runs give.
#
# In order: the figures (plots/make_plots.py, from the runs the docs target made in
# <OUTPUT_DIR>/generated/data and the GPU runs in plots/data/) into <OUTPUT_DIR>/figures; the
# Measurements page (docs/measurements/measurements.py) into <OUTPUT_DIR>/generated/measurements.md;
# the pages (docs/make_pages.py: each section's README.md and docs/pages/*.md,
# with their code, counts, traces and figures filled in) into <OUTPUT_DIR>/generated/pages, where a
# problem (a code anchor or a number that no longer matches, a figure not drawn) fails the build
# with WERROR; then the Doxyfile. The pages can test with Doxygen's \if: `solutions` (the docs show
# solutions/, SCANLAB_DOCS_SOLUTIONS=ON) or `exercises` (the stubs, OFF).
cmake_minimum_required(VERSION 3.24)

foreach(var SOURCE_DIR OUTPUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "configure_docs.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT DEFINED SOLUTIONS)
  set(SOLUTIONS ON)
endif()
if(NOT DEFINED WERROR)
  set(WERROR ON)
endif()

set(SCANLAB_SOURCE_DIR "${SOURCE_DIR}")
set(SCANLAB_VERSION "${VERSION}")
set(DOCS_OUTPUT_DIR "${OUTPUT_DIR}")
file(MAKE_DIRECTORY "${OUTPUT_DIR}")

set(sections "")
if(SOLUTIONS)
  set(code_dir "${SOURCE_DIR}/solutions")
  list(APPEND sections solutions)
else()
  set(code_dir "${SOURCE_DIR}/exercises")
  list(APPEND sections exercises)
endif()

# ---- kernel files: one ENABLED_SECTIONS name per file -------------------------------------------
set(example_dirs "")
set(kernel_inputs "")
file(GLOB section_dirs LIST_DIRECTORIES true "${code_dir}/11_*")
list(SORT section_dirs)
foreach(dir IN LISTS section_dirs)
  if(NOT IS_DIRECTORY "${dir}")
    continue()
  endif()
  get_filename_component(dir_name "${dir}" NAME)
  list(APPEND example_dirs "\"${dir}\"")
  list(APPEND kernel_inputs "\"${dir}\"")
  if(IS_DIRECTORY "${SOURCE_DIR}/chapters/${dir_name}")
    list(APPEND example_dirs "\"${SOURCE_DIR}/chapters/${dir_name}\"")
    # Given kernel files (not exercises, e.g. 11.8's tile_status.cuh) live in the chapter folder.
    file(GLOB given "${SOURCE_DIR}/chapters/${dir_name}/*.cuh")
    foreach(file IN LISTS given)
      list(APPEND kernel_inputs "\"${file}\"")
    endforeach()
  endif()
  file(GLOB kernels "${dir}/*.cuh" "${dir}/*.hpp")
  foreach(kernel IN LISTS kernels)
    get_filename_component(stem "${kernel}" NAME_WE)
    string(MAKE_C_IDENTIFIER "have_${dir_name}_${stem}" name)
    list(APPEND sections "${name}")
  endforeach()
endforeach()

set(generated_dir "${OUTPUT_DIR}/generated")
file(MAKE_DIRECTORY "${generated_dir}")

list(APPEND kernel_inputs "\"${generated_dir}/measurements.md\"" "\"${generated_dir}/pages\"")  # (INPUT: the pages Doxygen reads)

# ---- figures: plots/make_plots.py draws them from the docs build's runs and plots/data/ ------------
# The first Python that imports matplotlib: ./lab's fallback environment, then CMake's, then Debian's.
set(figures_dir "${OUTPUT_DIR}/figures")
file(MAKE_DIRECTORY "${figures_dir}")
set(plot_python "")
foreach(candidate "${SOURCE_DIR}/build/venv/bin/python" "${PYTHON}" /usr/bin/python3)
  if(candidate AND EXISTS "${candidate}")
    execute_process(COMMAND "${candidate}" -c "import matplotlib" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(plot_python "${candidate}")
      break()
    endif()
  endif()
endforeach()
if(plot_python)
  set(only bandwidth)
  if(EXISTS "${generated_dir}/data/11.3.json")
    string(APPEND only ",work,steps,trace")
  endif()
  if(EXISTS "${generated_dir}/data/11.4.banks.json")
    string(APPEND only ",banks")
  endif()
  if(EXISTS "${generated_dir}/data/11.8.statuses.json")
    string(APPEND only ",statuses")
  endif()
  file(MAKE_DIRECTORY "${generated_dir}/data")
  # (--png-only: the site shows each figure's PNG and its narrow rendering for a phone, no SVG)
  execute_process(COMMAND "${plot_python}" "${SOURCE_DIR}/plots/make_plots.py" --data "${generated_dir}/data"
                          --out "${figures_dir}" --only "${only}" --png-only
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs: plots/make_plots.py failed (see above)")
  endif()
else()
  message(WARNING "docs: no Python with matplotlib, so the pages have no figures: install python3-matplotlib")
  set(plot_python "${PYTHON}")
  if(NOT plot_python)
    set(plot_python python3)
  endif()
endif()

# ---- the Measurements page: generated from the results committed in the repository ----------------
# (docs/measurements/measurements.py, the one reader of the measurement CSVs that the figures and the
# pages use too; standard library only).
execute_process(COMMAND "${plot_python}" "${SOURCE_DIR}/docs/measurements/measurements.py" --root "${SOURCE_DIR}"
                        --out "${generated_dir}/measurements.md"
                RESULT_VARIABLE measurements_rc)
if(NOT measurements_rc EQUAL 0)
  message(FATAL_ERROR "docs: docs/measurements/measurements.py failed (above)")
endif()

# ---- the pages: chapters/<section>/README.md and docs/pages/*.md, made pages by make_pages.py --------
set(pages_dir "${generated_dir}/pages")
set(page_args --root "${SOURCE_DIR}" --generated "${generated_dir}" --out "${pages_dir}" --figures "${figures_dir}")
if(NOT SOLUTIONS)
  list(APPEND page_args --exercises)
endif()
if(NOT RUNS)  # no cpu backend or no solutions: the READMEs' copies of the counts and traces stand
  list(APPEND page_args --committed)
endif()
if(WERROR AND NOT UNDOCUMENTED)
  list(APPEND page_args --strict)
endif()
execute_process(COMMAND "${plot_python}" "${SOURCE_DIR}/docs/make_pages.py" ${page_args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "docs: docs/make_pages.py found problems in the pages (above)")
endif()

set(image_dirs "\"${figures_dir}\"")
if(IS_DIRECTORY "${SOURCE_DIR}/docs/images")
  list(APPEND image_dirs "\"${SOURCE_DIR}/docs/images\"")
endif()
# The pages show their figures as raw HTML (make_pages.py: alt text and a link to the full-size
# image), which Doxygen does not copy: every image goes into the site as an extra file.
file(GLOB extra_images "${figures_dir}/*.png" "${SOURCE_DIR}/docs/images/*.png")
list(SORT extra_images)
set(extra_files "")
foreach(image IN LISTS extra_images)
  list(APPEND extra_files "\"${image}\"")
endforeach()
list(JOIN extra_files " " DOCS_HTML_EXTRA_FILES)

# ---- the Doxyfile ---------------------------------------------------------------------------
list(JOIN sections " " DOCS_ENABLED_SECTIONS)
list(JOIN example_dirs " " DOCS_EXAMPLE_PATH)
list(JOIN image_dirs " " DOCS_IMAGE_PATH)
list(JOIN kernel_inputs " " DOCS_KERNEL_INPUTS)
if(DOT AND EXISTS "${DOT}")
  set(DOCS_HAVE_DOT YES)
  get_filename_component(DOCS_DOT_PATH "${DOT}" DIRECTORY)
else()
  set(DOCS_HAVE_DOT NO)
  set(DOCS_DOT_PATH "")
endif()
if(UNDOCUMENTED)
  # The lead's list of undocumented public API: warnings are the point, never errors.
  set(DOCS_WARN_IF_UNDOCUMENTED YES)
  set(DOCS_WARN_AS_ERROR NO)
  set(DOCS_WARN_LOGFILE "${OUTPUT_DIR}/undocumented.txt")
  set(doxyfile "${OUTPUT_DIR}/Doxyfile.undocumented")
  set(DOCS_OUTPUT_DIR "${OUTPUT_DIR}/undocumented")
else()
  set(DOCS_WARN_IF_UNDOCUMENTED NO)
  if(WERROR)
    set(DOCS_WARN_AS_ERROR FAIL_ON_WARNINGS)
  else()
    set(DOCS_WARN_AS_ERROR NO)
  endif()
  set(DOCS_WARN_LOGFILE "")
  set(doxyfile "${OUTPUT_DIR}/Doxyfile")
endif()
configure_file("${SOURCE_DIR}/docs/Doxyfile.in" "${doxyfile}" @ONLY)
