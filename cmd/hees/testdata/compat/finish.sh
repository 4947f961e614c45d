# finish.sh HEES STATE: evaluate rosenbrock d=4 until the run stops, print status -json
H=$1; S=$2
while :; do
  b=$($H ask -state $S 2>/dev/null)
  [ -n "$b" ] || break
  ids=$(echo "$b" | cut -d' ' -f1)
  vals=$(echo "$b" | cut -d' ' -f2- | $H eval -f rosenbrock -d 4)
  paste -d' ' <(echo "$ids") <(echo "$vals") | $H tell -state $S || break
done
$H status -json -state $S
