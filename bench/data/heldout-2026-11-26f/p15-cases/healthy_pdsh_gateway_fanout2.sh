cp $S/config_proxyjump $S/home/.ssh/config
echo "\$ pdsh -R ssh -f 2 -w node[1-8] 'nproc'"; $INNS pdsh -R ssh -f 2 -w 'node[1-8]' 'nproc'; rc=$?
cp $S/config_good $S/home/.ssh/config; exit $rc
