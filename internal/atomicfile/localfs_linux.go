package atomicfile

import "syscall"

// networkMagic lists the statfs(2) f_type of the network and cluster file
// systems of Linux: NFS, SMB/CIFS, Lustre, GPFS, BeeGFS, CephFS, GlusterFS
// and other FUSE file systems, AFS, 9p.
var networkMagic = map[int64]bool{
	0x6969:     true, // NFS
	0xFF534D42: true, // CIFS
	0xFE534D42: true, // SMB2
	0x517B:     true, // SMB
	0x0BD00BD0: true, // Lustre
	0x47504653: true, // GPFS
	0x19830326: true, // BeeGFS
	0x00C36400: true, // CephFS
	0x65735546: true, // FUSE (GlusterFS, sshfs, ...)
	0x5346414F: true, // AFS
	0x01021997: true, // 9p
}

// LocalFS reports whether the file or directory at path is on a local file
// system, where what one process writes is seen at once by every other
// process of the machine, and no other machine writes. It reports false
// for the network file systems it knows and when it cannot tell.
func LocalFS(path string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false
	}
	return !networkMagic[int64(st.Type)]
}
