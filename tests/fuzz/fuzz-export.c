/* lp-export's reader and every format on one input; the first byte picks the format. */
#include "export.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct export_opts o = { 0 };
	struct lp_error err;
	struct exporter *e;
	int fd;

	if (size == 0)
		return 0;
	o.format = data[0] % 4;
	data++, size--;
	fd = input_fd(data, size);
	e = exporter__new(&o, sink());
	if (!e)
		abort();
	/* read twice: state kept from one input to the next is reached too */
	if (exporter__read(e, fd, "fuzz", &err) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	    exporter__read(e, fd, "fuzz", &err) == 0)
		exporter__finish(e, &err);
	exporter__free(e);
	close(fd);
	return 0;
}
