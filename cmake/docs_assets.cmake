# After Doxygen: copies what the site needs offline beside its pages. MathJax
# 2 (Debian's libjs-mathjax, FROM) to TO: the TeX input, the HTML-CSS output
# with its TeX fonts, the extensions and English; not the 50 MB of other
# fonts, outputs and unpacked sources. And the trace viewer page (VIEWER) to
# HTML/trace-viewer.html, so the docs can link to it.
file(MAKE_DIRECTORY ${TO})
file(COPY ${FROM}/MathJax.js DESTINATION ${TO})
file(COPY ${FROM}/extensions DESTINATION ${TO})
file(COPY ${FROM}/jax/input/TeX DESTINATION ${TO}/jax/input)
file(COPY ${FROM}/jax/element DESTINATION ${TO}/jax)
file(COPY ${FROM}/jax/output/HTML-CSS DESTINATION ${TO}/jax/output
     PATTERN "fonts" EXCLUDE)
file(COPY ${FROM}/jax/output/HTML-CSS/fonts/TeX DESTINATION ${TO}/jax/output/HTML-CSS/fonts)
file(COPY ${FROM}/fonts/HTML-CSS/TeX DESTINATION ${TO}/fonts/HTML-CSS)
if(EXISTS ${FROM}/localization/en)
  file(COPY ${FROM}/localization/en DESTINATION ${TO}/localization)
endif()
if(EXISTS ${VIEWER})
  file(COPY ${VIEWER} DESTINATION ${HTML})
endif()

# The README links to source files (sim/src/block.cpp, docs/results/) by paths
# relative to the repository; from the site they are relative to SRC.
if(DEFINED SRC)
  file(RELATIVE_PATH up ${HTML} ${SRC})
  string(REGEX REPLACE "/$" "" up "${up}")
  file(GLOB pages ${HTML}/index.html ${HTML}/md_*.html)
  foreach(page IN LISTS pages)
    file(READ ${page} text)
    string(REGEX MATCHALL "href=\"[a-z][a-zA-Z0-9_./-]*\"" links "${text}")
    list(REMOVE_DUPLICATES links)
    set(changed OFF)
    foreach(link IN LISTS links)
      string(REGEX REPLACE "href=\"(.*)\"" "\\1" target "${link}")
      if(NOT target MATCHES "\\.(html|svg|png|js|css)$" AND EXISTS ${SRC}/${target} AND NOT EXISTS ${HTML}/${target})
        string(REPLACE "${link}" "href=\"${up}/${target}\"" text "${text}")
        set(changed ON)
      endif()
    endforeach()
    if(changed)
      file(WRITE ${page} "${text}")
    endif()
  endforeach()
endif()
