# Builds the trace viewer page from web/trace_viewer/: inlines every
# <link rel="stylesheet" href="X.css"> and <script src="X.js"></script> of
# index.html, so the page is one self-contained file. Writes
#   PAGE: the page itself, with an empty trace slot (open a trace file in it);
#   OUT:  a C++ file defining fasim::detail::trace_viewer_head() (the page up
#         to and including the slot's <script> tag) and trace_viewer_tail()
#         (from the slot's </script> on), which `fasim trace --html` joins
#         around a trace.
file(READ ${DIR}/index.html page)
string(REGEX MATCHALL "<link rel=\"stylesheet\" href=\"[a-z_]+\\.css\">" links "${page}")
foreach(tag IN LISTS links)
  string(REGEX REPLACE ".*href=\"([a-z_]+\\.css)\".*" "\\1" name "${tag}")
  file(READ ${DIR}/${name} text)
  string(REPLACE "${tag}" "<style>\n${text}</style>" page "${page}")
endforeach()
string(REGEX MATCHALL "<script src=\"[a-z_]+\\.js\"></script>" scripts "${page}")
foreach(tag IN LISTS scripts)
  string(REGEX REPLACE ".*src=\"([a-z_]+\\.js)\".*" "\\1" name "${tag}")
  file(READ ${DIR}/${name} text)
  string(FIND "${text}" "</script" bad)
  if(NOT bad EQUAL -1)
    message(FATAL_ERROR "${DIR}/${name} contains '</script', which would end the inlined script; write '<\\/script'")
  endif()
  string(REPLACE "${tag}" "<script>\n${text}</script>" page "${page}")
endforeach()

set(slot "<script type=\"application/x-ndjson\" id=\"fasim-trace\">")
string(FIND "${page}" "${slot}</script>" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DIR}/index.html lacks the empty trace slot ${slot}</script>")
endif()
string(LENGTH "${slot}" slot_length)
math(EXPR split "${at} + ${slot_length}")
string(SUBSTRING "${page}" 0 ${split} head)
string(SUBSTRING "${page}" ${split} -1 tail)
string(FIND "${page}" ")fasim_web\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "the viewer page contains ')fasim_web\"', the raw string delimiter of ${OUT}")
endif()

file(WRITE ${PAGE} "${page}")
set(body "// Generated from web/trace_viewer/ by cmake/embed_web.cmake. Do not edit.\n")
string(APPEND body "#include <string_view>\n\nnamespace fasim::detail {\n\n")
string(APPEND body "std::string_view trace_viewer_head() {\n  return R\"fasim_web(${head})fasim_web\";\n}\n\n")
string(APPEND body "std::string_view trace_viewer_tail() {\n  return R\"fasim_web(${tail})fasim_web\";\n}\n\n")
string(APPEND body "}  // namespace fasim::detail\n")
file(WRITE ${OUT} "${body}")
