"""Files: mesh import through meshio, export of models and results (VTU, PVD, XDMF with HDF5)
and their readers; :mod:`~fembody.io.io` holds them, :mod:`~fembody.io.xdmf` the XDMF
time-series writer and reader. Imported when first used (``fb.io``)."""
from .io import (EXPORT_CODES, JOINT_CODES, add_body, model_mesh, read_mesh, read_pvd,
                 read_xdmf, result_mesh, step_index, write_model, write_modes,
                 write_result)

__all__ = ["add_body", "read_mesh", "model_mesh", "write_model", "result_mesh", "write_result",
           "write_modes", "read_pvd", "read_xdmf", "step_index", "EXPORT_CODES", "JOINT_CODES"]
