# The documentation site: `cmake --build <build> --target docs` writes
# <build>/docs/html/index.html. Doxygen with doxygen-awesome-css; formulas
# through a copy of Debian's MathJax beside the pages, so the site works
# offline from file://. The lessons are rendered by `fasim lesson --markdown`
# (every number computed by fasim) into <build>/docs/gen first. Doxygen
# warnings fail the target.
find_package(Doxygen QUIET)
set(FASIM_AWESOME_CSS /usr/share/doxygen-awesome-css/doxygen-awesome.css)
set(FASIM_MATHJAX_DIR /usr/share/javascript/mathjax)
set(FASIM_DOCS_MISSING "")
if(NOT DOXYGEN_EXECUTABLE)
  list(APPEND FASIM_DOCS_MISSING doxygen)
endif()
if(NOT DOXYGEN_DOT_EXECUTABLE)
  list(APPEND FASIM_DOCS_MISSING graphviz)
endif()
if(NOT EXISTS ${FASIM_AWESOME_CSS})
  list(APPEND FASIM_DOCS_MISSING doxygen-awesome-css)
endif()
if(NOT EXISTS ${FASIM_MATHJAX_DIR}/MathJax.js)
  list(APPEND FASIM_DOCS_MISSING libjs-mathjax)
endif()
if(FASIM_DOCS_MISSING)
  list(JOIN FASIM_DOCS_MISSING " " missing)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E echo "docs: missing Debian packages; install them with: sudo apt-get install -y ${missing}"
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
  set(FASIM_HAVE_DOCS OFF)
  return()
endif()
set(FASIM_HAVE_DOCS ON)

set(FASIM_DOCS_OUT ${PROJECT_BINARY_DIR}/docs)
set(FASIM_DOCS_GEN ${FASIM_DOCS_OUT}/gen)

# The course: one page per lesson, in lesson order, under a "Course" page.
file(GLOB FASIM_LESSONS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lessons/[0-9][0-9]-*.md)
list(SORT FASIM_LESSONS)
file(GLOB_RECURSE FASIM_LESSON_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lessons/*)
# Recorded GPU runs that ```recorded blocks of lessons read.
file(GLOB FASIM_RECORDED_RUNS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/results/*)
list(APPEND FASIM_LESSON_FILES ${FASIM_RECORDED_RUNS})
set(course "# Course {#course}\n\nThe lessons, in order. Each page is the lesson as `fasim lesson N` shows it, with every number computed by fasim when these pages were built. Scenarios are shown with the command that runs them; take a lesson in a terminal to step through them, or write a scenario's trace viewer page with `fasim trace --html`.\n\n")
set(FASIM_LESSON_PAGES "")
foreach(lesson IN LISTS FASIM_LESSONS)
  get_filename_component(name ${lesson} NAME)
  string(SUBSTRING ${name} 0 2 nn)
  set(page ${FASIM_DOCS_GEN}/lessons/${name})
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${FASIM_DOCS_GEN}/lessons
    COMMAND $<TARGET_FILE:fasim> lesson ${lesson} --markdown --out ${page}
    DEPENDS fasim ${FASIM_LESSON_FILES}
    # From the source root, so the commands a page shows run from there.
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Rendering lesson ${name} for the docs"
    VERBATIM)
  list(APPEND FASIM_LESSON_PAGES ${page})
  string(APPEND course "- \\subpage lesson-${nn}\n")
endforeach()
string(APPEND course "\nWriting a lesson of your own: \\ref md_lessons_README.\n")
file(GENERATE OUTPUT ${FASIM_DOCS_GEN}/course.md CONTENT "${course}")

# Pages first (their order is the tree's), then the public headers.
set(inputs ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/design.md ${FASIM_DOCS_GEN}/course.md
    ${FASIM_LESSON_PAGES} ${PROJECT_SOURCE_DIR}/docs/timing-model.md ${PROJECT_SOURCE_DIR}/docs/fidelity.md
    ${PROJECT_SOURCE_DIR}/docs/variants.md
    ${PROJECT_SOURCE_DIR}/lessons/README.md ${PROJECT_SOURCE_DIR}/docs/results/README.md
    ${PROJECT_SOURCE_DIR}/sim/include/fasim
    ${PROJECT_SOURCE_DIR}/cuda/include/fasim)
list(JOIN inputs " " FASIM_DOCS_INPUT)
set(FASIM_HAVE_DOT YES)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${FASIM_DOCS_OUT}/Doxyfile @ONLY)

file(GLOB_RECURSE FASIM_DOCS_DEPENDS CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/sim/include/*.hpp ${PROJECT_SOURCE_DIR}/cuda/include/*.hpp
  ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.css ${PROJECT_SOURCE_DIR}/docs/figures/*.svg)
add_custom_command(
  OUTPUT ${FASIM_DOCS_OUT}/html/index.html
  COMMAND ${CMAKE_COMMAND} -E remove_directory ${FASIM_DOCS_OUT}/html
  COMMAND ${DOXYGEN_EXECUTABLE} ${FASIM_DOCS_OUT}/Doxyfile
  COMMAND ${CMAKE_COMMAND} -DFROM=${FASIM_MATHJAX_DIR} -DTO=${FASIM_DOCS_OUT}/html/mathjax
          -DVIEWER=${PROJECT_BINARY_DIR}/web/trace-viewer.html -DHTML=${FASIM_DOCS_OUT}/html
          -DSRC=${PROJECT_SOURCE_DIR}
          -P ${PROJECT_SOURCE_DIR}/cmake/docs_assets.cmake
  DEPENDS ${FASIM_DOCS_OUT}/Doxyfile ${FASIM_LESSON_PAGES} ${FASIM_DOCS_DEPENDS} ${PROJECT_SOURCE_DIR}/README.md
          ${PROJECT_SOURCE_DIR}/lessons/README.md ${PROJECT_SOURCE_DIR}/docs/results/README.md
          ${PROJECT_SOURCE_DIR}/cmake/docs_assets.cmake fasim_sim
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Building the docs with Doxygen (warnings are errors): ${FASIM_DOCS_OUT}/html/index.html"
  VERBATIM)
add_custom_target(docs DEPENDS ${FASIM_DOCS_OUT}/html/index.html)
