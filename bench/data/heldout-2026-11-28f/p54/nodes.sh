B=/tmp/heldout-p54
start_node() { # N extra-lines [wrapper...]
  local n=$1 extra=$2; shift 2
  mkdir -p -m755 /run/sshd $B/n$n
  cat > $B/n$n/sshd_config <<C
ListenAddress 127.0.54.$((n+1)):2254
HostKey $B/ssh/host_ed25519
PidFile $B/n$n/sshd.pid
AuthorizedKeysFile $B/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 200:30:400
LogLevel ERROR
AcceptEnv LANG LC_*
$extra
Subsystem sftp internal-sftp
C
  "$@" /usr/sbin/sshd -f $B/n$n/sshd_config -E $B/n$n/log
  sleep 0.3; echo "node$n pid $(cat $B/n$n/sshd.pid)"
}
stop_node() { [ -f $B/n$1/sshd.pid ] && kill $(cat $B/n$1/sshd.pid) && rm -f $B/n$1/sshd.pid; }
