set -e
H=/tmp/hees-main
S=$1; shift
rm -f $S $S.lock
$H init -state $S "$@"
gens=$GENS
for i in $(seq 1 $gens); do
  b=$($H ask -state $S)
  [ -n "$b" ] || break
  ids=$(echo "$b" | cut -d' ' -f1)
  vals=$(echo "$b" | cut -d' ' -f2- | $H eval -f rosenbrock -d 4)
  paste -d' ' <(echo "$ids") <(echo "$vals") | $H tell -state $S
done
