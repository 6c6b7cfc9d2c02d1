# Task parameters are input from the database: strata_a3c_hub's `a3c_agent` kind must refuse bad
# ones with an error naming the parameter, before it runs anything. Submits a plan of bad agent
# tasks (one attempt each), runs one worker of strata_a3c_hub until idle, and checks each task
# failed with its expected message (`strata plan --json tasks`).
#   cmake -DSTRATA=<strata> -DA3C=<strata_a3c_hub> -DDIR=<folder> -P a3c_hub_bad_params.cmake
foreach(var STRATA A3C DIR)
  if(NOT ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(hub ${DIR}/bad_params.db)
set(ok "\"shared\": \"a3c\", \"env\": \"CartPole-v1\", \"total_steps\": 100")
# name | params | the error's expected text (a regex; no brackets, which would split the list)
set(cases
  "unknown_env|{\"shared\": \"a3c\", \"env\": \"Nope-v0\", \"steps\": 10, \"total_steps\": 100}|\"env\" is \"Nope-v0\", not an environment id"
  "negative_steps|{${ok}, \"steps\": -5}|\"steps\" must be in .1, .*got -5"
  "steps_as_text|{${ok}, \"steps\": \"many\"}|steps"
  "steps_over_total|{${ok}, \"steps\": 1000}|\"total_steps\" must be in .1000, "
  "zero_lr|{${ok}, \"steps\": 10, \"lr\": 0}|\"lr\" must be in .0, 1., got 0"
  "gamma_above_1|{${ok}, \"steps\": 10, \"gamma\": 1.5}|\"gamma\" must be in .0, 1., got 1.5"
  "huge_envs|{${ok}, \"steps\": 10, \"envs\": 100000}|\"envs\" must be in .1, 256."
  "unknown_param|{${ok}, \"steps\": 10, \"argv\": [\"rm\"]}|argv"
  "missing_shared|{\"env\": \"CartPole-v1\", \"steps\": 10, \"total_steps\": 100}|shared"
  "no_shared_row|{${ok}, \"steps\": 10}|shared parameters 'a3c' do not exist")
set(tasks "")
foreach(case ${cases})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 params)
  if(tasks)
    string(APPEND tasks ",\n")
  endif()
  string(APPEND tasks "  {\"name\": \"${name}\", \"kind\": \"a3c_agent\", \"max_attempts\": 1, \"params\": ${params}}")
endforeach()
file(WRITE ${DIR}/plan.json "{\"name\": \"bad agents\", \"tasks\": [\n${tasks}]}\n")

execute_process(COMMAND ${STRATA} plan --hub ${hub} submit ${DIR}/plan.json RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "strata plan submit failed: ${out}")
endif()
execute_process(COMMAND ${A3C} worker --hub ${hub} --exit-when-idle RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the worker failed: ${out}")
endif()
execute_process(COMMAND ${STRATA} plan --hub ${hub} --json tasks 1 RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "strata plan tasks failed: ${err}")
endif()
string(JSON count LENGTH "${json}")
set(checked 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" ${i} name)
  string(JSON status GET "${json}" ${i} status)
  string(JSON error GET "${json}" ${i} error)
  foreach(case ${cases})
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 case_name)
    list(GET parts 2 expected)
    if(case_name STREQUAL name)
      if(NOT status STREQUAL "failed" OR NOT error MATCHES "${expected}")
        message(FATAL_ERROR "task ${name}: status ${status}, error '${error}'; expected failed with /${expected}/")
      endif()
      message(STATUS "${name}: failed: ${error}")
      math(EXPR checked "${checked} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH cases expected_count)
if(NOT checked EQUAL expected_count)
  message(FATAL_ERROR "checked ${checked} of ${expected_count} tasks: ${json}")
endif()
message(STATUS "all ${checked} bad agent tasks refused")
