# runtime_text_section.cmake - run after libflightrec.a is archived:
#   cmake -DOBJCOPY=... -DREADELF=... -DARCHIVE=libflightrec.a -P runtime_text_section.cmake
# Renames the code sections of every object in the archive to flightrec_text, so that in
# a program linked with it the runtime's code lies between the linker's
# __start_flightrec_text and __stop_flightrec_text. The library-call hooks use those
# bounds to tell the runtime's own libc calls (through the program's PLT, when the
# runtime is linked in statically) from the program's (functrace/libcall_stack.c).
# Only the archive's copies of the objects are renamed: the shared library, linked from
# the same object files, keeps .text.
foreach(v OBJCOPY READELF ARCHIVE)
  if(NOT ${v})
    message(FATAL_ERROR "runtime_text_section.cmake: ${v} not given")
  endif()
endforeach()
# every code section of the objects: .text, and what compilers add beside it (gcc's
# .text.unlikely, .text.startup; the sanitizers' .text.asan.module_ctor...)
function(code_sections out)
  execute_process(COMMAND ${READELF} -SW ${ARCHIVE} OUTPUT_VARIABLE sections RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime_text_section.cmake: ${READELF} -SW ${ARCHIVE} failed")
  endif()
  string(REGEX MATCHALL "[ \t]\\.text[^ \t\n]*" names "${sections}")
  set(list)
  foreach(n ${names})
    string(STRIP "${n}" n)
    list(APPEND list "${n}")
  endforeach()
  if(list)
    list(REMOVE_DUPLICATES list)
  endif()
  set(${out} "${list}" PARENT_SCOPE)
endfunction()
code_sections(before)
set(renames)
foreach(s ${before})
  list(APPEND renames --rename-section "${s}=flightrec_text")
endforeach()
if(renames)
  execute_process(COMMAND ${OBJCOPY} ${renames} ${ARCHIVE} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime_text_section.cmake: ${OBJCOPY} failed on ${ARCHIVE}: ${err}")
  endif()
endif()
# a code section left would escape the bounds: say which, rather than build a library
# whose own calls get recorded
code_sections(left)
if(left)
  message(FATAL_ERROR "runtime_text_section.cmake: code sections not renamed in ${ARCHIVE}: ${left}")
endif()
