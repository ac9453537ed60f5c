# tests/check.sh: the check helper of the shell tests that count their checks, sourced:
#   . "$(dirname "$0")/check.sh"
#   check "what is checked" "$expected" "$actual"   # equal strings, else FAIL: and a diff
#   ...; echo "name: $pass passed, $fail failed"; [ $fail -eq 0 ]
pass=0
fail=0
check() {
  if [ "$2" == "$3" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $1"
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -20
  fi
}
