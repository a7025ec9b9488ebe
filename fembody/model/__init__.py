"""What the user builds: the Model (:mod:`~fembody.model.model`: nodes, bodies, elements,
joints, loads, conditions) and the objects it holds - nodes and bodies
(:mod:`~fembody.model.bodies`), materials and sections (:mod:`~fembody.model.materials`), loads
and motors (:mod:`~fembody.model.loads`), time functions (:mod:`~fembody.model.functions`),
sensors (:mod:`~fembody.model.sensors`), line meshes (:mod:`~fembody.model.meshes`), supports
and prescribed values (:mod:`~fembody.model.conditions`) and the argument checks they share
(:mod:`~fembody.model.modelcheck`).

This file imports nothing: the compiled System (below the Model) reads nodes and bodies from
this package, and the Model compiles a System, so a re-export of ``Model`` here would make
every import of ``fembody.model.bodies`` load the Model and close an import cycle. Import
``Model`` from :mod:`fembody` or :mod:`fembody.model.model`.
"""
